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
);
