import { Client } from 'pg';

/**
 * The PostgreSQL instances a test database lives on. On plain PostgreSQL, the server itself. On a
 * Citus coordinator (the server's own database has the `citus` extension), the coordinator and its
 * workers: a Citus database exists under one name on every node, each with the extension, and the
 * coordinator's copy knows the workers, so every database the tests create, copy or drop is
 * created, copied or dropped on each node.
 */
export interface DatabaseNodes {
  citus: boolean;
  /** Admin URLs (the server's own database on each node), the coordinator first. */
  urls: string[];
  workers: { host: string; port: number }[];
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function withNode(url: string, host: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = host;
  parsed.port = String(port);
  return parsed.toString();
}

export async function databaseNodes(serverUrl: string): Promise<DatabaseNodes> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (!rowCount) return { citus: false, urls: [serverUrl], workers: [] };
    const { rows } = await admin.query<{ host: string; port: number }>(
      `SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeid`,
    );
    return { citus: true, urls: [serverUrl, ...rows.map((w) => withNode(serverUrl, w.host, w.port))], workers: rows };
  } finally {
    await admin.end();
  }
}

/** Runs statements on one node's admin connection. */
export async function onNode(url: string, run: (client: Client) => Promise<void>): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

/**
 * Runs a statement that needs `database` idle (CREATE DATABASE … TEMPLATE it, ALTER DATABASE
 * RENAME it, DROP it). On Citus a database is never idle for long: its maintenance daemon, and the
 * coordinator's cached connections to the workers, come back; so their sessions are ended right
 * before the statement, and it is retried while one slips in between.
 */
export async function whenIdle(client: Client, database: string, statement: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
      database,
    ]);
    try {
      await client.query(statement);
      return;
    } catch (error) {
      const inUse = (error as { code?: string }).code === '55006';
      if (!inUse || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** Drops a database on every node (on Citus its copies on the workers too). */
export async function dropEverywhere(nodes: DatabaseNodes, name: string): Promise<void> {
  for (const url of nodes.urls) {
    await onNode(url, (client) => whenIdle(client, name, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
}
