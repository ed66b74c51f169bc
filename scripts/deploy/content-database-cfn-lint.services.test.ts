// The content database's CloudFormation template through cfn-lint (PyPI, pinned, linked as
// .venv-cfn-lint by scripts/setup-system.sh), as it is deployed: a stack of its own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { cfnLint as lint } from '../../test/cfn-lint';
import { root } from './ebextensions';

const templatePath = path.join(root, 'cloudformation/content-database.yaml');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-cfn-lint-db-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('cfn-lint passes the content database template: no error, no warning', { timeout: 120_000 }, () => {
  const { status, output } = lint(templatePath);
  // cfn-lint's exit code is a bit field: 2 errors, 4 warnings, 8 informational.
  assert.equal(status, 0, output);
});

test('cfn-lint does check it: a misspelt property and a wrong type fail', { timeout: 120_000 }, () => {
  const broken = fs
    .readFileSync(templatePath, 'utf8')
    .replace('      StorageEncrypted: true', '      StorageEncryptd: true')
    .replace('      BackupRetentionPeriod: 14', '      BackupRetentionPeriod: fourteen');
  const file = path.join(dir, 'broken.yaml');
  fs.writeFileSync(file, broken);
  const { status, output } = lint(file);
  assert.ok((status ?? 0) & 2, `expected errors, got status ${status}:\n${output}`);
  assert.match(output, /StorageEncryptd/);
  assert.match(output, /fourteen/);
});
