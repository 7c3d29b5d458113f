import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../../apps/api/src/runtime/embedded-postgres';
import { EmbeddedPostgresError } from '../../../apps/api/src/runtime/embedded-postgres-error';

/**
 * The app's embedded start (no DATABASE_URL) in a `mktemp -d` (0700) project directory: as
 * root, PostgreSQL's `postgres` user cannot enter it, as in root's home.
 */
describe('embedded PostgreSQL in a private directory', () => {
  const projectDir = mkdtempSync(join(tmpdir(), 'billing-embedded-'));
  const dataDir = join(projectDir, '.data');
  const started: EmbeddedDatabase[] = [];
  const quiet = () => undefined;

  afterAll(async () => {
    for (const database of started) {
      await database.stop();
      rmSync(database.dataDir, { recursive: true, force: true });
    }
    rmSync(projectDir, { recursive: true, force: true });
  });

  it('refuses a taken port in one line that says what to do, and leaves nothing running', async () => {
    const blocker = await listening();
    try {
      const error = await startEmbeddedPostgres(dataDir, quiet, { port: portOf(blocker) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbeddedPostgresError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^Could not start the embedded PostgreSQL: port ${portOf(blocker)} on 127\\.0\\.0\\.1 is already in use .*DATABASE_URL`,
        ),
      );
      expect((error as Error).message).not.toContain('\n');
    } finally {
      blocker.close();
    }
  });

  it('keeps its data across restarts, readable by its owner alone', async () => {
    const first = await startEmbeddedPostgres(dataDir, quiet);
    started.push(first);
    await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('survives')");
    await first.stop();

    const second = await startEmbeddedPostgres(dataDir, quiet);
    started.push(second);
    expect(second.dataDir).toBe(first.dataDir);
    expect((await query(second.url, 'SELECT note FROM kept')).rows).toEqual([{ note: 'survives' }]);
    expect(second.url).not.toContain('postgres:postgres@');
    expect(statSync(second.dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(second.dataDir, 'billing-password')).mode & 0o777).toBe(0o600);
    expect(openToOthers(second.dataDir)).toEqual([]);
  });

  it('reports a data directory it cannot create in one line', async () => {
    const file = join(projectDir, 'a-file');
    writeFileSync(file, '');
    const error = await startEmbeddedPostgres(join(file, '.data'), quiet).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddedPostgresError);
    expect((error as Error).message).toMatch(/^Could not start the embedded PostgreSQL: .*ENOTDIR.*DATABASE_URL/);
    expect((error as Error).message).not.toContain('\n');
  });
});

function listening(): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  return (server.address() as { port: number }).port;
}

async function query(url: string, sql: string) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

function openToOthers(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
    (entry) => (statSync(join(dir, entry)).mode & 0o007) !== 0,
  );
}
