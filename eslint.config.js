import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', 'bench/.out/**', '**/node_modules/**', 'docs/**', 'coverage/**', '**/*.generated.*', '**/conformance/grammar*', 'packages/release-test/test/fixtures/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['**/test/**', 'bench/**', 'examples/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
