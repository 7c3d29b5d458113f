/**
 * Four projects: unit specs next to the code; integration, e2e and reliability specs under test/.
 * Reliability specs (quality bars R6–R10) derive what they check from the live OpenAPI document.
 */
const swc = ['@swc/jest', require('./test/support/swc-options')];
const moduleNameMapper = {
  '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
  // Generated code (test/support/generated) imports TypeScript files by their emitted name, as nodenext wants.
  '^(\\.{1,2}/.*)\\.js$': '$1',
};
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  moduleFileExtensions: ['ts', 'js', 'json'],
};

/**
 * The `citus` project (test/citus) checks what only a cluster shows (distribution, single-shard
 * plans): selected with CITUS_TESTS=1 beside a DATABASE_URL naming a Citus coordinator, as the CI's
 * Citus step does; its specs fail, saying why, on any other server.
 */
function citusProject() {
  return process.env.CITUS_TESTS === '1'
    ? [{ ...common, displayName: 'citus', testMatch: ['<rootDir>/test/citus/**/*.citus-spec.ts'] }]
    : [];
}

module.exports = {
  // Global only (a project-level testTimeout is ignored): app start-up in hooks, and the
  // concurrency suites, need more than the default 5 s on a loaded 2-core machine.
  testTimeout: 120000,
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'] },
    { ...common, displayName: 'reliability', testMatch: ['<rootDir>/test/reliability/**/*.reliability-spec.ts'] },
    ...citusProject(),
  ],
};
