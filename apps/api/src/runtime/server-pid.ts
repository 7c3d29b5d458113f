import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `<pid> <url>` in DATA_DIR/server.pid while the server runs on that directory's embedded
 * database, removed at exit: scripts/running-server.js reads it to refuse a second start at once.
 */
export function recordServerPid(dataDir: string, url: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'server.pid');
  writeFileSync(file, `${process.pid} ${url}\n`, { mode: 0o600 });
  process.once('exit', () => rmSync(file, { force: true }));
}
