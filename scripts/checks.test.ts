// The checks npm test runs before its tests, two at a time (scripts/checks.ts): the runner with
// commands of its own (a check that fails, two that write), the checks read from package.json's
// scripts, and the command line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checksFrom, runChecks } from './checks';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const node = (code: string) => [process.execPath, '-e', code];

test('checks run side by side; each one is logged whole as it ends, and a failure is an outcome, not an exception', async () => {
  const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-checks-')), 'written');
  const logged: string[] = [];
  try {
    const outcomes = await runChecks(
      [
        // Ends only once "writes" has run, which the other lane starts after two more: so two at a time.
        {
          name: 'waits',
          command: node(
            `process.stdout.write('one\\n'); const t = setInterval(() => { if (require('fs').existsSync(${JSON.stringify(marker)})) { console.log('two'); process.exit(0); } }, 20); setTimeout(() => process.exit(1), 20000);`,
          ),
        },
        { name: 'fails', command: node("console.error('broken'); process.exit(3)") },
        { name: 'missing', command: [path.join(root, 'node_modules', '.bin', 'no-such-tool')] },
        { name: 'writes', command: node(`require('fs').writeFileSync(${JSON.stringify(marker)}, ''); console.log('done')`) },
      ],
      2,
      (text) => logged.push(text),
    );
    assert.deepEqual(
      outcomes.slice(0, 2).map(({ name, ok }) => [name, ok]),
      [
        ['fails', false],
        ['missing', false],
      ],
    );
    assert.deepEqual(
      outcomes
        .slice(2)
        .map(({ name, ok }) => [name, ok])
        .sort(),
      [
        ['waits', true],
        ['writes', true],
      ],
    );
    assert.match(
      logged.find((text) => text.startsWith('checks: waits'))!,
      /^checks: waits passed in \d+ s\none\ntwo$/,
    );
    assert.match(
      logged.find((text) => text.startsWith('checks: fails'))!,
      /^checks: fails FAILED in \d+ s\nbroken$/,
    );
    assert.match(
      logged.find((text) => text.startsWith('checks: missing'))!,
      /FAILED[\s\S]*ENOENT/,
    );
  } finally {
    fs.rmSync(path.dirname(marker), { recursive: true, force: true });
  }
});

test("a bare command is found in the project's node_modules/.bin, as npm run finds it", async () => {
  const before = process.env.PATH;
  process.env.PATH = path.dirname(process.execPath); // node only: no node_modules/.bin, as outside npm
  try {
    const logged: string[] = [];
    const outcomes = await runChecks([{ name: 'tsc', command: ['tsc', '--version'] }], 1, (text) => logged.push(text));
    assert.deepEqual(
      outcomes.map(({ ok }) => ok),
      [true],
      logged.join('\n'),
    );
    assert.match(logged[0]!, /Version \d+\.\d+/);
  } finally {
    process.env.PATH = before;
  }
});

test('one at a time, they run in order', async () => {
  const outcomes = await runChecks(
    [
      { name: 'a', command: node('setTimeout(() => {}, 200)') },
      { name: 'b', command: node('') },
    ],
    1,
    () => {},
  );
  assert.deepEqual(
    outcomes.map(({ name }) => name),
    ['a', 'b'],
  );
});

test('the command line: --help prints the usage, a bad --concurrency is refused with it', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'checks.ts'), ...args], { cwd: root, encoding: 'utf8' });
  const help = cli('--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: tsx scripts\/checks\.ts/);
  const refused = cli('--concurrency', '0');
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--concurrency must be a whole number, 1 or more, got "0"/);
});

test("the checks are package.json's build, typecheck and lint scripts split at &&, longest first; shell syntax is refused", () => {
  const scripts = {
    build: 'webpack --mode production',
    typecheck: 'tsc --noEmit -p a.json && tsc --noEmit -p b.json',
    lint: 'prettier --check .  &&  eslint --max-warnings 0 .',
    test: 'not checked',
  };
  assert.deepEqual(
    checksFrom(scripts).map(({ name, command }) => [name, command]),
    [
      ['lint: eslint --max-warnings 0 .', ['eslint', '--max-warnings', '0', '.']],
      ['typecheck: tsc --noEmit -p a.json', ['tsc', '--noEmit', '-p', 'a.json']],
      ['typecheck: tsc --noEmit -p b.json', ['tsc', '--noEmit', '-p', 'b.json']],
      ['lint: prettier --check .', ['prettier', '--check', '.']],
      ['build: webpack --mode production', ['webpack', '--mode', 'production']],
    ],
  );
  // A program with no time known here starts last; the rest keep package.json's order.
  assert.deepEqual(
    checksFrom({ a: 'new-tool x && tsc -p c.json' }, ['a']).map(({ name }) => name),
    ['a: tsc -p c.json', 'a: new-tool x'],
  );
  assert.throws(() => checksFrom({ build: 'x' }), /package\.json has no "typecheck" script to check/);
  for (const script of ['eslint . | tee out', "prettier --check '*.ts'", 'tsc; eslint .', 'tsc & eslint .', 'eslint $DIR', 'tsc > log']) {
    assert.throws(() => checksFrom({ lint: script }, ['lint']), /package\.json's "lint" script is not plain commands joined by &&/, script);
  }
  assert.throws(() => checksFrom({ lint: 'eslint . &&' }, ['lint']), /has an empty command/);
});
