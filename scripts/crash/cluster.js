'use strict';
// The crash script's own PostgreSQL cluster, started the app's way (apps/api/src/runtime, built):
// as root it runs as the `postgres` user from a copy of the binaries that user can reach. The
// script owns it, so an immediate shutdown never touches any other PostgreSQL.
const { chmodSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');

const runtimeDir = join(__dirname, '../../dist/apps/api/apps/api/src/runtime');
const { postgresBinaries } = require(join(runtimeDir, 'postgres-binaries'));
const { freePort, initCluster, startServer } = require(join(runtimeDir, 'postgres-server'));
const { postgresUser } = require(join(runtimeDir, 'postgres-user'));

class Cluster {
  /** A fresh cluster in a private temporary directory (removed by remove()). */
  static async create() {
    const parent = mkdtempSync(join(tmpdir(), 'billing-crash-pg-'));
    chmodSync(parent, 0o711);
    const user = postgresUser();
    const cluster = new Cluster(parent, { binaries: postgresBinaries(user), user }, randomBytes(18).toString('base64url'));
    await initCluster(cluster.dir, cluster.password, cluster.runtime);
    cluster.port = await freePort();
    return cluster;
  }

  constructor(parent, runtime, password) {
    this.parent = parent;
    this.dir = join(parent, 'data');
    this.runtime = runtime;
    this.password = password;
    this.server = null;
  }

  url(port = this.port, database = 'postgres') {
    return `postgres://postgres:${encodeURIComponent(this.password)}@127.0.0.1:${port}/${database}`;
  }

  /** Durable commits (fsync on, synchronous_commit on): an immediate stop must lose nothing acknowledged. */
  async start() {
    this.server = await startServer(this.dir, this.port, this.runtime, ['-c', 'max_connections=100']);
  }

  /** `pg_ctl stop -m immediate`: SIGQUIT to the postmaster, no checkpoint, crash recovery at the next start. */
  async stopImmediate() {
    const pid = Number(readFileSync(join(this.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGQUIT');
    const deadline = Date.now() + 30_000;
    while (isAlive(pid) && Date.now() < deadline) await sleep(50);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await this.server.stop();
    this.server = null;
  }

  async stop() {
    await this.server?.stop();
    this.server = null;
  }

  remove() {
    rmSync(this.parent, { recursive: true, force: true });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = { Cluster, sleep };
