// Starts one PostgreSQL for the whole run when DATABASE_URL is not set, then hands its URL to
// every worker through the environment. Each test file creates its own database on it.
// It is started the app's way (apps/api/src/runtime): as root it runs as the `postgres` user,
// from a copy of the binaries that user can reach when the project directory is private.
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { execFileSync } = require('node:child_process');
const { EmbeddedPostgresError } = require('../../apps/api/src/runtime/embedded-postgres-error');
const { postgresBinaries } = require('../../apps/api/src/runtime/postgres-binaries');
const { freePort, initCluster, startServer } = require('../../apps/api/src/runtime/postgres-server');
const { postgresUser } = require('../../apps/api/src/runtime/postgres-user');

module.exports = async function globalSetup() {
  process.env.TEST_RUN_ID = randomBytes(4).toString('hex');
  if (process.env.DATABASE_URL) {
    // The run's migrated template, built before any file starts (on a Citus cluster that takes longer
    // than a file's hook may wait); in a process of its own, which resolves the `@app/…` paths.
    execFileSync(
      process.execPath,
      [
        '-r',
        join(__dirname, 'register-ts.js'),
        '-e',
        `require(${JSON.stringify(join(__dirname, 'test-database.ts'))}).prepareTemplate()`,
      ],
      { stdio: 'inherit', env: process.env },
    );
    return;
  }
  // Private to this run; PostgreSQL's own user (as root: `postgres`) may pass through to `data`.
  const parent = mkdtempSync(join(tmpdir(), 'billing-test-pg-'));
  chmodSync(parent, 0o711);
  try {
    const user = postgresUser();
    const runtime = { binaries: postgresBinaries(user), user };
    const dir = join(parent, 'data');
    const password = randomBytes(18).toString('base64url');
    await initCluster(dir, password, runtime);
    const flags = ['-c', 'max_connections=300', '-c', 'fsync=off'];
    const server = await startServer(dir, await freePort(), runtime, flags);
    globalThis.__EMBEDDED_POSTGRES__ = {
      stop: async () => {
        await server.stop();
        rmSync(parent, { recursive: true, force: true });
      },
    };
    process.env.DATABASE_URL = `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`;
  } catch (error) {
    rmSync(parent, { recursive: true, force: true });
    if (!(error instanceof EmbeddedPostgresError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
};
