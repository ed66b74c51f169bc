import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'loadtest/target/', 'bench-results/', 'bundle/', '.venv-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'client/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['server/**/*.{ts,tsx}', 'scripts/**/*.ts', 'tools/**/*.ts', 'test/**/*.{ts,tsx}', '*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // The Node version check runs before anything else and on any Node, so it is CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Type-aware rules where a dropped promise hides a failure: an async server or tool that
    // forgets an await answers nothing, or exits before its work is done.
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test registers tests with the promise it returns; the runner awaits them.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // Production code never leans on test support (test/) or test libraries: a harness edited
    // for a test must not change what is built and shipped.
    files: ['server/**/*.{ts,tsx}', 'src/**/*.{ts,tsx}', 'client/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:assert', 'node:assert/strict', 'node:test', 'fast-check', 'playwright-core'].map((name) => ({
            name,
            message: 'Test libraries are for tests.',
          })),
          patterns: [{ regex: '(^|/)test/', message: 'Test support (test/) is for tests and tools, never production code.' }],
        },
      ],
    },
  },
  {
    // The content layer is read by maintainers who change it: no function longer than a screen.
    files: ['server/content/**/*.ts'],
    ignores: ['**/*.test.ts', 'server/content/seed*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
);
