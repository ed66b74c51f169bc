// The lint rules that keep the code in shape do catch what they are for: test support out of
// production code, and no function in server/content over 60 lines.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '..');

async function problems(code: string, file: string): Promise<string[]> {
  // The files are made up, so the type-aware rules (which need them in a tsconfig) are off here.
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off', '@typescript-eslint/await-thenable': 'off' },
    },
  });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

test('production code may not import test support or test libraries; tests and tools may', async () => {
  const importSupport = "import { freePort } from '../test/server';\nexport const port = freePort;\n";
  assert.match((await problems(importSupport, 'server/example.ts')).join('\n'), /no-restricted-imports: .*test support/i);
  assert.match(
    (await problems("import { freePort } from '../../test/server';\nexport const p = freePort;\n", 'server/metrics/example.ts')).join('\n'),
    /no-restricted-imports/,
  );
  assert.match(
    (await problems("import assert from 'node:assert/strict';\nexport const a = assert;\n", 'src/example.ts')).join('\n'),
    /Test libraries are for tests/,
  );
  assert.deepEqual(await problems(importSupport, 'server/example.test.ts'), []);
  assert.deepEqual(await problems("import { freePort } from '../../test/server';\nexport const p = freePort;\n", 'tools/bench/example.ts'), []);
});

/** A function of `lines` statements, with blank lines and comments between that do not count. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines }, (_, i) => `  total += ${i};\n\n  // step ${i}`).join('\n');
  return `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

test('no function in server/content over 60 lines, blank lines and comments aside; tests and the seed are not held to it', async () => {
  // 57 statements, the opening line, `let`, `return` and the closing brace: 61 lines.
  assert.ok((await problems(functionOf(57), 'server/content/example.ts')).some((p) => p.startsWith('max-lines-per-function:')));
  assert.ok((await problems(functionOf(57), 'server/content/nested/example.ts')).some((p) => p.startsWith('max-lines-per-function:')));
  assert.ok(!(await problems(functionOf(56), 'server/content/example.ts')).some((p) => p.startsWith('max-lines-per-function:')), '60 lines are allowed');
  for (const exempt of ['server/content/example.test.ts', 'server/content/seed-example.ts', 'server/example.ts']) {
    assert.ok(!(await problems(functionOf(57), exempt)).some((p) => p.startsWith('max-lines-per-function:')), exempt);
  }
});
