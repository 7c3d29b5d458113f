import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from '@app/shared-kernel';
import { migrations } from '../../migrations';
import { DatabaseNodes, databaseNodes, dropEverywhere, onNode, whenIdle, withDatabase } from './database-nodes';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

const TEMPLATE_LOCK_KEY = 7_210_441_998_002;
const TEST_SHARD_COUNT = 4;

function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests through jest (its global setup provides one)');
  return url;
}

/** An empty database on every node; on Citus with the extension everywhere and the workers registered. */
async function createEmptyDatabase(nodes: DatabaseNodes, name: string): Promise<void> {
  for (const url of nodes.urls) {
    await onNode(url, async (client) => {
      await client.query(`CREATE DATABASE "${name}"`);
    });
    if (nodes.citus) {
      await onNode(withDatabase(url, name), async (client) => {
        await client.query('CREATE EXTENSION citus');
      });
    }
  }
  if (!nodes.citus) return;
  const coordinator = new URL(nodes.urls[0]);
  await onNode(withDatabase(nodes.urls[0], name), async (client) => {
    // Four shards a table still spread the organizations over every worker; the default 32 make
    // migrating the template (a shard per table and shard group) several times slower.
    await client.query(`ALTER DATABASE "${name}" SET citus.shard_count = ${TEST_SHARD_COUNT}`);
    await client.query('SELECT citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)]);
    for (const worker of nodes.workers) await client.query('SELECT citus_add_node($1, $2)', [worker.host, worker.port]);
  });
}

/**
 * A migrated template of this run's own, named after the run and the migrations it holds, built once
 * per run. Other runs' templates (another checkout on the same server) are never touched; the global
 * teardown drops this run's.
 */
async function ensureTemplate(admin: Client, nodes: DatabaseNodes): Promise<string> {
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
      await createEmptyDatabase(nodes, building);
      await runMigrations(withDatabase(serverUrl(), building), migrations);
      // The coordinator last: a template present there is a template complete everywhere.
      for (const url of [...nodes.urls.slice(1), nodes.urls[0]]) {
        await onNode(url, (client) => whenIdle(client, building, `ALTER DATABASE "${building}" RENAME TO "${template}"`));
      }
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
  }
  return template;
}

function runId(): string {
  return process.env.TEST_RUN_ID ?? 'adhoc';
}

/** Builds this run's template ahead of the test files (the global setup), so no file's hook pays for the migrations. */
export async function prepareTemplate(): Promise<void> {
  const nodes = await databaseNodes(serverUrl());
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await ensureTemplate(admin, nodes);
  } finally {
    await admin.end();
  }
}

/** A fresh, fully migrated database of its own for one test file (on Citus: on every node). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const nodes = await databaseNodes(serverUrl());
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    const template = await ensureTemplate(admin, nodes);
    const name = `billing_test_${runId()}_${randomBytes(4).toString('hex')}`;
    for (const url of nodes.urls) {
      await onNode(url, (client) => whenIdle(client, template, `CREATE DATABASE "${name}" TEMPLATE "${template}"`));
    }
    return { url: withDatabase(serverUrl(), name), name, drop: () => dropEverywhere(nodes, name) };
  } finally {
    await admin.end();
  }
}
