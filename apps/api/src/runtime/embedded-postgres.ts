import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgresError } from './embedded-postgres-error';
import { machineDir } from './machine-dir';
import { postgresBinaries } from './postgres-binaries';
import { freePort, initCluster, ownPrivately, PostgresRuntime, startServer } from './postgres-server';
import { canEnter, PostgresUser, postgresUser } from './postgres-user';

export interface EmbeddedDatabase {
  url: string;
  /** The cluster's directory. */
  dataDir: string;
  stop(): Promise<void>;
}

const DATABASE_NAME = 'billing';
/** The superuser's password, kept in the cluster directory (0600). */
const PASSWORD_FILE = 'billing-password';
/** Clusters made before the password file existed were given this one. */
const LEGACY_PASSWORD = 'postgres';

/**
 * Starts the PostgreSQL that the `embedded-postgres` package ships, with a cluster that survives
 * restarts: `<dataDir>/postgres`, or — for root in a directory the `postgres` user cannot enter —
 * one under MACHINE_DIR/clusters named after `dataDir`'s real path. Any failure is an
 * EmbeddedPostgresError (one line: what failed, what to do); nothing is left running.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
  options: { reuseRunning?: boolean; port?: number } = {},
): Promise<EmbeddedDatabase> {
  try {
    return await start(dataDir, log, options);
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) throw error;
    throw new EmbeddedPostgresError(error instanceof Error ? error.message : String(error));
  }
}

async function start(
  dataDir: string,
  log: (message: string) => void,
  options: { reuseRunning?: boolean; port?: number },
): Promise<EmbeddedDatabase> {
  const user = postgresUser();
  const clusterDir = clusterDirectory(dataDir, user);
  const running = runningPostmaster(clusterDir);
  if (running && options.reuseRunning) {
    return { url: urlOf(running.port, readPassword(clusterDir)), dataDir: clusterDir, stop: async () => undefined };
  }
  if (running) {
    throw new EmbeddedPostgresError(
      `the cluster in ${clusterDir} is still in use by PostgreSQL pid ${running.pid} (another server, or an earlier ` +
        `one that was killed); stop it with \`kill ${running.pid}\` and start again`,
    );
  }
  const runtime: PostgresRuntime = { binaries: postgresBinaries(user), user };
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising an embedded PostgreSQL in ${clusterDir}`);
    // What an interrupted initdb left behind; a cluster always has PG_VERSION.
    if (existsSync(clusterDir) && readdirSync(clusterDir).length > 0) rmSync(clusterDir, { recursive: true });
    const password = randomBytes(24).toString('base64url');
    await initCluster(clusterDir, password, runtime);
    writeFileSync(join(clusterDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600 });
    ownPrivately(join(clusterDir, PASSWORD_FILE), user, 0o600);
  }
  const server = await startServer(clusterDir, options.port ?? (await freePort()), runtime);
  const url = urlOf(server.port, readPassword(clusterDir));
  try {
    await ensureDatabase(url);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url, dataDir: clusterDir, stop: () => server.stop() };
}

/**
 * `<dataDir>/postgres` when PostgreSQL's user can reach it (always, unless we are root); else
 * MACHINE_DIR/clusters/<hash of dataDir's real path>, so the same project finds it again.
 */
function clusterDirectory(dataDir: string, user: PostgresUser | undefined): string {
  const local = resolve(dataDir, 'postgres');
  if (!user) return local;
  mkdirSync(dataDir, { recursive: true });
  if (canEnter(user, resolve(dataDir))) return local;
  if (existsSync(join(local, 'PG_VERSION'))) {
    throw new EmbeddedPostgresError(
      `the cluster in ${local} cannot be reached by the "${user.name}" user (a parent directory is private); ` +
        `let it pass (chmod o+x on each parent) or move the cluster away to start a new one`,
    );
  }
  const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  return join(machineDir('clusters'), key);
}

function readPassword(clusterDir: string): string {
  const file = join(clusterDir, PASSWORD_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : LEGACY_PASSWORD;
}

function urlOf(port: number, password: string, database = DATABASE_NAME): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** The app's database; created on the first start (or after a first start that stopped before it). */
async function ensureDatabase(url: string): Promise<void> {
  const client = new Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres'), connectionTimeoutMillis: 30_000 });
  try {
    await client.connect();
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE_NAME)}`);
  } catch (error) {
    throw new EmbeddedPostgresError(`could not connect to it (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The postmaster of this data directory, when one is alive (postmaster.pid: pid, dir, start, port). */
function runningPostmaster(databaseDir: string): { pid: number; port: number } | undefined {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  return Number.isInteger(pid) && isAlive(pid) ? { pid, port: Number(lines[3]) } : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
