import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedPostgresError } from './embedded-postgres-error';

/**
 * Where root keeps what the `postgres` user must reach when the project directory is private:
 * the copy of the PostgreSQL binaries (0755) and the embedded clusters (`clusters/`, 0711: the
 * `postgres` user may pass, nobody may list).
 */
export const MACHINE_DIR = '/var/lib/billing-api';

/** MACHINE_DIR, or its `clusters/`, created when missing; refused when anyone but root could write to it. */
export function machineDir(sub?: 'clusters'): string {
  rootOwned(MACHINE_DIR, 0o755);
  return sub ? rootOwned(join(MACHINE_DIR, sub), 0o711) : MACHINE_DIR;
}

function rootOwned(path: string, mode: number): string {
  mkdirSync(path, { recursive: true, mode });
  const stat = statSync(path);
  if (stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new EmbeddedPostgresError(`${path} must be owned by root and writable by root alone`);
  }
  return path;
}
