// cfn-lint (PyPI, pinned), which scripts/setup-system.sh installs and links as .venv-cfn-lint: the
// deployment tests run CloudFormation templates through it. The tests fail, not skip, without it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cfnLintPath = process.env.CFN_LINT ?? path.join(root, '.venv-cfn-lint/bin/cfn-lint');

/** cfn-lint on one template file. Its exit status is a bit field: 2 errors, 4 warnings, 8 informational. */
export function cfnLint(file: string): { status: number | null; output: string } {
  const result = spawnSync(cfnLintPath, ['--format', 'parseable', '--', file], { encoding: 'utf8' });
  if (result.error) throw new Error(`${cfnLintPath} did not run (${result.error.message}): run scripts/setup-system.sh`);
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}
