// The DDoS kit's template (cloudformation/edge-protection.yaml) through cfn-lint (PyPI, pinned, linked
// as .venv-cfn-lint by scripts/setup-system.sh) as it is deployed, and in each state
// `npm run edge` switches it to: its parameter defaults set to what the command sends, so
// the conditions and Fn::If branches cfn-lint resolves are the ones CloudFormation would take.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { cfnLint as lint } from '../../test/cfn-lint';
import { parse, stringify } from 'yaml';
import { applyChange, parametersFrom, parameterValues, rulesFor, templatePath, type EdgeParameters } from './web-acl';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-cfn-lint-edge-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The template with its defaults set to these parameters, written where cfn-lint reads it. */
function withDefaults(p: EdgeParameters, name: string): string {
  const template = parse(fs.readFileSync(templatePath, 'utf8')) as { Parameters: Record<string, { Default?: unknown }> };
  for (const [key, value] of Object.entries(parameterValues(p))) template.Parameters[key]!.Default = value;
  const file = path.join(dir, name);
  fs.writeFileSync(file, stringify(template));
  return file;
}

test('cfn-lint passes the edge protection template: no error, no warning', { timeout: 120_000 }, () => {
  const { status, output } = lint(templatePath);
  // cfn-lint's exit code is a bit field: 2 errors, 4 warnings, 8 informational.
  assert.equal(status, 0, output);
});

test('the geo rule flipped from count to block and back: each state passes cfn-lint and has the action asked for', { timeout: 120_000 }, () => {
  const deployed = parametersFrom({ EnvironmentName: 'kiosk-prod' });
  const blocked = applyChange(deployed, { kind: 'block-countries', countries: ['FI', 'SE'] });
  const states: [string, EdgeParameters, object | undefined][] = [
    ['deployed', deployed, undefined],
    ['blocked', blocked, { Block: {} }],
    ['unblocked', applyChange(blocked, { kind: 'unblock-countries' }), { Count: {} }],
  ];
  for (const [name, p, action] of states) {
    const { status, output } = lint(withDefaults(p, `${name}.yaml`));
    assert.equal(status, 0, `${name}: ${output}`);
    assert.deepEqual(rulesFor(p).find((r) => r.Name === 'countries')?.Action, action, name);
  }
});

test('cfn-lint does check it: a misspelt property and a wrong scope fail', { timeout: 120_000 }, () => {
  const broken = fs
    .readFileSync(templatePath, 'utf8')
    .replace('      Scope: CLOUDFRONT', '      Scope: GLOBAL')
    .replace('              AggregateKeyType: IP', '              AggregateKeyTyp: IP');
  const file = path.join(dir, 'broken.yaml');
  fs.writeFileSync(file, broken);
  const { status, output } = lint(file);
  assert.ok((status ?? 0) & 2, `expected errors, got status ${status}:\n${output}`);
  assert.match(output, /GLOBAL/);
  assert.match(output, /AggregateKeyTyp/);
});
