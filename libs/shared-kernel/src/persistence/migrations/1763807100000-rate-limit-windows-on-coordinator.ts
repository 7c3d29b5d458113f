import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeTenantTable, isCitusDatabase } from '../citus-distribution';

/**
 * On a Citus coordinator, `rate_limit_windows` leaves the organizations' shard groups and becomes a
 * plain table on the coordinator (every request passes the coordinator anyway; one row per
 * organization and bucket and minute). It is UNLOGGED (no WAL per counted request), and a
 * publication refuses unlogged tables: while it sat in the shard group, Citus could move or isolate
 * a tenant only by blocking the tenant's writes for the whole copy (shard_transfer_mode
 * 'block_writes'), longer than a request may wait. Without it, a shard group moves by logical
 * replication and writes pause only for the switch-over. On plain PostgreSQL this does nothing.
 */
export class RateLimitWindowsOnCoordinator1763807100000 implements MigrationInterface {
  name = 'RateLimitWindowsOnCoordinator1763807100000';

  async up(q: QueryRunner): Promise<void> {
    if (!(await isCitusDatabase(q))) return;
    const rows: unknown[] = await q.query(`SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'rate_limit_windows'::regclass`);
    if (rows.length > 0) await q.query(`SELECT undistribute_table('rate_limit_windows')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await distributeTenantTable(q, 'rate_limit_windows');
  }
}
