// Every platform hook under .platform/ as the instance runs it: Elastic Beanstalk runs only the
// executable files there, and a script bash cannot parse fails the deployment at that step.
// (beanstalk-nginx.services.test.ts runs the origin secret hook for real.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { platformDir } from './ebextensions';

const hookScripts = ['hooks', 'confighooks'].flatMap((kind) =>
  fs.readdirSync(path.join(platformDir, kind)).flatMap((stage) =>
    fs
      .readdirSync(path.join(platformDir, kind, stage))
      .filter((name) => name.endsWith('.sh'))
      .map((name) => path.join(platformDir, kind, stage, name)),
  ),
);

test('every platform hook is executable and parses as bash', () => {
  assert.ok(hookScripts.length >= 2, `found ${hookScripts.length} hooks`);
  for (const script of hookScripts) {
    const where = path.relative(platformDir, script);
    assert.ok((fs.statSync(script).mode & 0o111) !== 0, `${where} is not executable; Elastic Beanstalk would skip it`);
    const syntax = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
    assert.equal(syntax.status, 0, `${where}: ${syntax.stderr}`);
  }
});

test('the check can fail: a script bash cannot parse is caught', () => {
  const broken = spawnSync('bash', ['-n', '-c', 'if true; then echo'], { encoding: 'utf8' });
  assert.notEqual(broken.status, 0);
});
