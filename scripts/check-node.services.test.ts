// The version check that npm start, npm run dev and npm test run before anything native: this
// Node passes it in silence, and a Node older than "engines" asks for is refused with the one
// sentence (the check is copied beside a package.json that asks for a Node that does not exist).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const check = path.join(path.dirname(fileURLToPath(import.meta.url)), 'check-node.cjs');

function runIn(dir: string) {
  return spawnSync(process.execPath, [path.join(dir, 'scripts', 'check-node.cjs')], { encoding: 'utf8' });
}

function projectAsking(range: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-check-node-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(check, path.join(dir, 'scripts', 'check-node.cjs'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ engines: { node: range } }));
  fs.writeFileSync(path.join(dir, '.node-version'), '999.1.2\n');
  return dir;
}

test('the Node running the tests passes, saying nothing', () => {
  const result = runIn(path.resolve(path.dirname(check), '..'));
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout + result.stderr, '');
});

test('an older Node is refused in one sentence: the version found, the one required, the setup script', () => {
  const dir = projectAsking('>=999');
  try {
    const result = runIn(dir);
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    const lines = result.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    const [line] = lines as [string];
    assert.ok(line.includes(`Node.js ${process.versions.node} (${process.execPath})`), line);
    assert.ok(line.includes('needs Node.js 999 or newer'), line);
    assert.ok(line.includes('`bash scripts/setup-system.sh`, which installs Node.js 999.1.2'), line);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});

test('an "engines" range the check cannot read stops it rather than letting any Node through', () => {
  const dir = projectAsking('^24.1');
  try {
    const result = runIn(dir);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /"engines\.node" must read ">=MAJOR".*"\^24\.1"/);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
});
