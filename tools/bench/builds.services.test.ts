// The builds A/B (tools/bench/builds.ts) against the real built cluster behind the real Nginx:
// two arms of this checkout's build, one with a setting of its own, two short rounds. Its figures
// are a measurement for a quiet machine; this test checks the machinery (arms started with their
// settings, the order alternating, every page's CPU read, the summary) and the command line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { medianRoundRatio, parseArm, roundOrder } from './builds';

const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'tools/bench/builds.ts', ...args], { encoding: 'utf8', timeout: 180_000 });

test('two arms, two rounds: each arm measured once a round, the order reversed in the second, the medians and ratios summed up', () => {
  const result = run(['--arm', 'plain=.', '--arm', 'young16=.:WORKER_SEMI_SPACE_MB=16', '--rounds', '2', '--requests', '400', '--articles', '200']);
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  const rows = [...result.stdout.matchAll(/^\| (\d) \| (\w+) \| (\d+) \|$/gm)].map((m) => ({ round: Number(m[1]), arm: m[2], us: Number(m[3]) }));
  assert.deepEqual(
    rows.map((r) => `${r.round}:${r.arm}`),
    ['1:plain', '1:young16', '2:young16', '2:plain'],
  );
  assert.ok(
    rows.every((r) => r.us > 50 && r.us < 100_000),
    `a page's CPU read from the server's processes: ${JSON.stringify(rows)}`,
  );
  assert.match(result.stdout, /^\| plain \| \d+, \d+ \| \d+ \| 1\.000x \|$/m);
  assert.match(result.stdout, /^\| young16 \| \d+, \d+ \| \d+ \| \d+\.\d{3}x \|$/m);
});

test('a flood: each arm under the default guard at a multiple of the rate, its server-rendered pages a second and what was not fresh', () => {
  const result = run([
    '--arm',
    'plain=.',
    '--arm',
    'shellonly=.:SSR_QUEUE_LIMIT=0',
    '--rounds',
    '1',
    '--articles',
    '200',
    '--flood',
    '2',
    '--rate',
    '150',
    '--flood-seconds',
    '2',
  ]);
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /server-rendered pages\/s at 2x 150\/s \(300\/s offered\)/);
  const rows = [...result.stdout.matchAll(/^\| 1 \| (\w+) \| (\d+) \| (\d+)% \| (\d+) \| (\d+) \| (\d+)% \| (\d+)% \/ (\d+)% \|$/gm)].map((m) => ({
    arm: m[1],
    ssrPerS: Number(m[2]),
    notFresh: Number(m[3]),
    failures: Number(m[5]),
    worker: Number(m[7]),
  }));
  assert.deepEqual(
    rows.map((r) => r.arm),
    ['plain', 'shellonly'],
    result.stdout,
  );
  const [plain, shellOnly] = rows;
  // 300/s is well within one worker's capacity: most pages fresh (a busy machine's pause can
  // send a burst to the shell); with no room for a render (SSR_QUEUE_LIMIT=0), none is.
  assert.ok(plain!.ssrPerS > 150 && plain!.ssrPerS <= 330 && plain!.notFresh < 50, JSON.stringify(plain));
  assert.ok(shellOnly!.ssrPerS === 0 && shellOnly!.notFresh === 100, JSON.stringify(shellOnly));
  assert.ok(
    rows.every((r) => r.failures === 0),
    JSON.stringify(rows),
  );
  // Rendering takes the worker's core; answering the shell alone leaves it nearly idle.
  assert.ok(plain!.worker > shellOnly!.worker, JSON.stringify(rows));
});

test('--flood without --rate is refused', () => {
  const result = run(['--arm', 'a=.', '--arm', 'b=.', '--flood', '5']);
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /--flood and --rate go together/);
});

test('a malformed arm, a missing build or a single arm is refused with the usage and exit 2, before anything starts', () => {
  for (const [args, message] of [
    [['--arm', 'nolabel', '--arm', 'b=.'], /--arm must be LABEL=DIR/],
    [['--arm', 'a=.', '--arm', 'b=/nonexistent-kiosk-build'], /no build in \/nonexistent-kiosk-build\/dist/],
    [['--arm', 'a=.'], /at least two --arm/],
    [['--arm', 'a=.:NOVALUE', '--arm', 'b=.'], /"NOVALUE" is not KEY=VALUE/],
  ] as const) {
    const result = run([...args]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /Usage: npx tsx tools\/bench\/builds.ts/);
  }
});

test('arms, their order and the ratio', () => {
  assert.deepEqual(parseArm('v8=.:WORKER_SEMI_SPACE_MB=0,WORKER_HEAP_GROWING_PERCENT=0', '/repo'), {
    label: 'v8',
    root: '/repo',
    env: { WORKER_SEMI_SPACE_MB: '0', WORKER_HEAP_GROWING_PERCENT: '0' },
  });
  assert.deepEqual(parseArm('before=../b', '/work/main'), { label: 'before', root: '/work/b', env: {} });
  assert.deepEqual(roundOrder(['a', 'b', 'c'], 1), ['a', 'b', 'c']);
  assert.deepEqual(roundOrder(['a', 'b', 'c'], 2), ['c', 'b', 'a']);
  assert.equal(medianRoundRatio([110, 90, 105], [100, 100, 100]), 1.05);
});
