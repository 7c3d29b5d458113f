import { ChildProcess, spawn } from 'node:child_process';
import { chownSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgresError } from './embedded-postgres-error';
import { PostgresBinaries } from './postgres-binaries';
import { PostgresUser } from './postgres-user';

/** Every wait is bounded: a failure ends the start with a message, never a hang. */
const INITDB_TIMEOUT_MS = 180_000;
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 30_000;

export interface PostgresRuntime {
  binaries: PostgresBinaries;
  /** Runs the processes, owns the cluster; undefined: the current user. */
  user?: PostgresUser;
}

export interface RunningPostgres {
  port: number;
  stop(): Promise<void>;
}

/**
 * Creates a cluster in `dir` (0700, owned by the runtime's user) whose superuser `postgres` has
 * `password` (SCRAM). initdb reads the password from a 0600 file in a private temporary directory
 * that is removed right after (embedded-postgres writes it world-readable into /tmp).
 */
export async function initCluster(dir: string, password: string, runtime: PostgresRuntime): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  ownPrivately(dir, runtime.user);
  const secrets = mkdtempSync(join(tmpdir(), 'billing-initdb-'));
  try {
    const passwordFile = join(secrets, 'password');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    ownPrivately(secrets, runtime.user);
    ownPrivately(passwordFile, runtime.user, 0o600);
    const args = [
      `--pgdata=${dir}`,
      '--username=postgres',
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
    ];
    await runToEnd(spawnAs(runtime, runtime.binaries.initdb, args), 'initdb', INITDB_TIMEOUT_MS);
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

/**
 * Starts `postgres` on 127.0.0.1:`port` and resolves once its postmaster.pid says "ready". It runs
 * in its own process group, so a Ctrl-C reaches the app, which stops it last.
 */
export async function startServer(
  dir: string,
  port: number,
  runtime: PostgresRuntime,
  flags: string[] = [],
): Promise<RunningPostgres> {
  const args = ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', ...flags];
  const child = spawnAs(runtime, runtime.binaries.postgres, args, { detached: true });
  const log = tail(child);
  // A crash of this process must not leave the postmaster behind (SIGINT: fast shutdown).
  const stopOnExit = () => void child.kill('SIGINT');
  process.once('exit', stopOnExit);
  child.once('exit', () => process.removeListener('exit', stopOnExit));
  try {
    await new Promise<void>((ready, fail) => {
      const poll = setInterval(() => {
        if (isReady(dir, child.pid)) finish();
      }, 100);
      const timer = setTimeout(
        () => finish(`it was not ready after ${START_TIMEOUT_MS / 1000} s${lastWords(log)}`),
        START_TIMEOUT_MS,
      );
      const onError = (error: NodeJS.ErrnoException) =>
        finish(`could not run ${runtime.binaries.postgres} (${error.code ?? error.message})`);
      const onExit = () => {
        const words = log.join('\n');
        finish(
          /Address already in use/.test(words)
            ? `port ${port} on 127.0.0.1 is already in use`
            : `postgres stopped during start-up${lastWords(log)}`,
        );
      };
      child.once('error', onError);
      child.once('exit', onExit);
      function finish(problem?: string) {
        clearInterval(poll);
        clearTimeout(timer);
        child.removeListener('error', onError);
        child.removeListener('exit', onExit);
        if (problem) fail(new EmbeddedPostgresError(problem));
        else ready();
      }
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { port, stop: () => stopChild(child) };
}

function spawnAs(runtime: PostgresRuntime, command: string, args: string[], options: { detached?: boolean } = {}): ChildProcess {
  return spawn(command, args, {
    ...(runtime.user ? { uid: runtime.user.uid, gid: runtime.user.gid } : {}),
    // The project directory may be one the user cannot enter.
    cwd: '/',
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached,
  });
}

function runToEnd(child: ChildProcess, name: string, timeoutMs: number): Promise<void> {
  const log = tail(child);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new EmbeddedPostgresError(`${name} did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(new EmbeddedPostgresError(`could not run ${name} (${error.code ?? error.message})`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) done();
      else fail(new EmbeddedPostgresError(`${name} failed (${signal ?? `exit ${code}`})${lastWords(log)}`));
    });
  });
}

/** Keeps reading the child's output (a full pipe would block it) and remembers its last lines. */
function tail(child: ChildProcess, keep = 30): string[] {
  const lines: string[] = [];
  const read = (chunk: Buffer) => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
    lines.splice(0, Math.max(0, lines.length - keep));
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  return lines;
}

/** The most telling line of a failure: the last FATAL/PANIC/error line, else the last line. */
function lastWords(lines: string[]): string {
  const telling = [...lines].reverse().find((line) => /FATAL|PANIC|ERROR|error:/.test(line)) ?? lines.at(-1);
  return telling ? `: ${telling.trim()}` : '';
}

/** postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem key, status. */
function isReady(dir: string, pid: number | undefined): boolean {
  try {
    const lines = readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n');
    return Number(lines[0]) === pid && lines[7]?.trim() === 'ready';
  } catch {
    return false;
  }
}

/** SIGINT (fast shutdown: clients are disconnected, a checkpoint is written), SIGKILL if that takes too long. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((stopped) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      stopped();
    });
    child.kill('SIGINT');
  });
}

/** Owned by the runtime's user (when it is not the current one), and by nobody else. */
export function ownPrivately(path: string, user: PostgresUser | undefined, mode = 0o700): void {
  if (user) chownSync(path, user.uid, user.gid);
  chmodSync(path, mode);
}

/** A port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
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
