// One lint configuration for the whole workspace: `pnpm lint` (run by `pnpm test`).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'e2e/artifacts/**',
      'e2e/test-results/**',
      'e2e/playwright-report/**',
      'bench/baselines/**/.venv/**',
      'bench-results/**',
      '.venvs/**',
      'models/tools/**',
      'models/.generated/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      // Type and value imports from one module go in one statement (`import { a, type B }`).
      'no-duplicate-imports': ['error', { includeExports: false, allowSeparateTypeImports: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always'],
      // A package is used through its `exports` map (`@sightline/web/frame-size`), never by reaching into
      // another package's sources: what a package exports is its contract, the rest may change.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(shared|gateway|web|bench|bench/harness|models|e2e|deploy)/src(/|$)',
              message:
                "Import another workspace package by its name and exports map (e.g. '@sightline/web/frame-size'), not by relative path.",
            },
          ],
        },
      ],
      'no-console': 'off',
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'web/test/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Playwright reads a fixture's dependencies from its destructuring pattern: `{}` means none.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
  prettier,
);
