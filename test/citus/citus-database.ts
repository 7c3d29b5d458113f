import { Client } from 'pg';

/**
 * The `citus` project tests what only a Citus coordinator can show. It is selected only when
 * DATABASE_URL names one (jest.config.js); run anywhere else it fails here, saying why.
 */
export async function assertCitusCoordinator(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ workers: number }>(
      `SELECT (SELECT count(*) FROM pg_dist_node WHERE groupid <> 0)::int AS workers
        WHERE EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`,
    );
    if (rows.length === 0 || rows[0].workers === 0) {
      throw new Error(
        `The citus project needs DATABASE_URL to name a Citus coordinator with workers (e.g. ../shared/citus/cluster.sh start); ${new URL(url).host} is not one`,
      );
    }
  } catch (error) {
    if ((error as { code?: string }).code === '42P01')
      throw new Error(`${new URL(url).host} has no Citus metadata: not a Citus coordinator`);
    throw error;
  } finally {
    await client.end();
  }
}
