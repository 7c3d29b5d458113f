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
  ],
};
