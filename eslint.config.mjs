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

/** DTO properties take `@ApiProperty` from apps/api/src/http/api-property.ts, which refuses a type reflected as Object. */
const swaggerProperty = {
  name: '@nestjs/swagger',
  importNames: ['ApiProperty', 'ApiPropertyOptional'],
  message: 'Import ApiProperty and ApiPropertyOptional from apps/api/src/http/api-property (it checks the declared type).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'bench/results/**', 'test/support/generated/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...contextBoundaries, paths: [swaggerProperty] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['apps/api/src/http/api-property.ts'],
    rules: { 'no-restricted-imports': ['error', contextBoundaries] },
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
