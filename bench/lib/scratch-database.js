// A scratch database for one benchmark: on DATABASE_URL's server when set, else on an
// embedded PostgreSQL started for the run. `drop()` removes it (and stops the embedded server).
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');

// The app's own way of running PostgreSQL (apps/api/src/runtime, compiled by `npm run build`):
// as root it runs as `postgres`, from binaries that user can reach even in a private directory.
const runtimeDir = join(__dirname, '../../dist/apps/api/apps/api/src/runtime');
const { postgresBinaries } = require(join(runtimeDir, 'postgres-binaries'));
const { freePort, initCluster, startServer } = require(join(runtimeDir, 'postgres-server'));
const { postgresUser } = require(join(runtimeDir, 'postgres-user'));

async function startEmbedded() {
  const parent = mkdtempSync(join(tmpdir(), 'billing-bench-pg-'));
  chmodSync(parent, 0o711);
  const user = postgresUser();
  const runtime = { binaries: postgresBinaries(user), user };
  const password = randomBytes(18).toString('base64url');
  const dir = join(parent, 'data');
  await initCluster(dir, password, runtime);
  const server = await startServer(dir, await freePort(), runtime, ['-c', 'max_connections=300', '-c', 'shared_buffers=256MB']);
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

async function scratchDatabase(label) {
  const server = process.env.DATABASE_URL
    ? { url: process.env.DATABASE_URL, stop: async () => undefined }
    : await startEmbedded();
  const name = `billing_bench_${label}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: server.url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
      await server.stop();
    },
  };
}

module.exports = { scratchDatabase, freePort };
