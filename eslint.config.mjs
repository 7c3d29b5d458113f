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
      regex: '^\\.\\./(\\.\\./)*(identity|catalog|documents|billing-wallet|webhooks|shared-kernel)/src(/|$)',
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

/**
 * R9, one clock: business time comes from the injected Clock (the database's time) or from SQL,
 * never from the host. A duration (a cache's age, a timing) uses performance.now().
 */
const hostClock = [
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'No `new Date()` for "now": inject Clock (the database\'s time); a duration uses performance.now().',
  },
  {
    selector: "MemberExpression[object.type='MemberExpression'][object.property.name='Date'][property.name='now']",
    message: "No `globalThis.Date.now`: inject Clock (the database's time); a duration uses performance.now().",
  },
  {
    selector: "CallExpression[callee.name='Date'][arguments.length=0]",
    message: 'No `Date()` for "now": inject Clock (the database\'s time); a duration uses performance.now().',
  },
];
const hostClockProperties = [
  {
    object: 'Date',
    property: 'now',
    message: "No `Date.now`: inject Clock (the database's time); a duration uses performance.now().",
  },
];

/**
 * Errors are declared once (issue 22, item 4): a DomainError is created from its definition,
 * `<Context>Errors.CODE.create(message, options)` (libs/<context>/src/domain/<context>-errors.ts,
 * libs/shared-kernel/src/shared-kernel-errors.ts, apps/api/src/http/http-errors.ts), whose code
 * the error catalog and `@ApiErrors` know; never from a code written at the throw site.
 */
const declaredErrors = [
  {
    selector: "NewExpression[callee.name='DomainError']",
    message:
      "Create the error from its definition: `<Context>Errors.CODE.create(message, options)`; declare a new code in the context's <context>-errors.ts first.",
  },
  {
    selector:
      ":matches(NewExpression[callee.name=/Error$/], CallExpression[callee.type='Super']) > Literal.arguments[value=/^[A-Z][A-Z0-9_]+$/]",
    message: 'An error code comes from its definition (`<Context>Errors.CODE.code`), not a literal written here.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'bench/results/**', 'test/support/generated/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { ...contextBoundaries, paths: [swaggerProperty] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', ...hostClock, ...declaredErrors],
      'no-restricted-properties': ['error', ...hostClockProperties],
    },
  },
  {
    // The clock itself (it reads the host's clock plus the measured offset to the database's),
    // log timestamps (the host's time by design), and unit specs (no app, no database).
    files: [
      'libs/shared-kernel/src/persistence/database-clock.ts',
      'apps/api/src/logging.ts',
      'apps/api/src/main.ts',
      '**/*.spec.ts',
    ],
    rules: { 'no-restricted-syntax': 'off', 'no-restricted-properties': 'off' },
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
