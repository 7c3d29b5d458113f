import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The only reader of `idempotency_records.created_at` is the hourly purge (purgeInBatches:
 * `created_at < $1 LIMIT 5000`, no order), which a BRIN index serves as well as a B-tree: the
 * table is append-only in created_at order, so the expired rows sit in the first block ranges.
 * The B-tree cost every money operation one more index insertion and ~30 bytes of index per
 * record; the BRIN index costs a few pages for the whole table (as `events_created_at_brin` does
 * for the events' retention). On Citus the index is created on every shard like any other.
 */
export class IdempotencyCreatedAtBrin1763809100000 implements MigrationInterface {
  name = 'IdempotencyCreatedAtBrin1763809100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX idempotency_records_created_at_brin ON idempotency_records USING brin (created_at)`);
    await q.query(`DROP INDEX idempotency_records_created_at_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX idempotency_records_created_at_idx ON idempotency_records (created_at)`);
    await q.query(`DROP INDEX idempotency_records_created_at_brin`);
  }
}
