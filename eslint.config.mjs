// @ts-check
import tseslint from 'typescript-eslint';

/** A context is reached only through its public face, `@app/<context>` (its index.ts). */
const contextBoundaries = {
  patterns: [
    {
      regex: '^@app/[^/]+/.+',
      message: 'Import another context only through its index: `@app/<context>`.',
    },
    {
      regex: '(^|/)libs/[^/]+/src(/|$)',
      message: 'Import another context only through its index: `@app/<context>`.',
    },
    {
      regex: '^\\.\\./(\\.\\./)*(identity|catalog|documents|billing-wallet|shared-kernel)/src(/|$)',
      message: 'Import another context only through its index: `@app/<context>`.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', contextBoundaries],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'bench/**/*'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly', globalThis: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
