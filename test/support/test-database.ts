import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from '@app/shared-kernel';
import { migrations } from '../../migrations';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

const TEMPLATE_LOCK_KEY = 7_210_441_998_002;

function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests through jest (its global setup provides one)');
  return url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A migrated template of this run's own, named after the run and the migrations it holds, built once
 * per run. Other runs' templates (another checkout on the same server) are never touched; the global
 * teardown drops this run's.
 */
async function ensureTemplate(admin: Client): Promise<string> {
  // The migrations' code, not only their names: a migration edited before it lands rebuilds the template.
  const fingerprint = createHash('sha256')
    .update(migrations.map((migration) => `${migration.name}:${migration.prototype.up.toString()}`).join('\n'))
    .digest('hex')
    .slice(0, 12);
  const template = `billing_template_${runId()}_${fingerprint}`;
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (rowCount === 0) {
      const building = `${template}_building_${randomBytes(3).toString('hex')}`;
      await admin.query(`CREATE DATABASE "${building}"`);
      await runMigrations(withDatabase(serverUrl(), building));
      await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
  }
  return template;
}

function runId(): string {
  return process.env.TEST_RUN_ID ?? 'adhoc';
}

/** A fresh, fully migrated database of its own for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    const template = await ensureTemplate(admin);
    const name = `billing_test_${runId()}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    return { url: withDatabase(serverUrl(), name), name, drop: () => dropDatabase(name) };
  } finally {
    await admin.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
