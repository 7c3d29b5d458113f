import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A plan is never updated or published before it was created. The plan list relies on it: an
 * upper bound on `updated_at` or `published_at` implies the same bound on `created_at`, which
 * lets the default order (newest first) start its index walk at that bound instead of reading
 * every newer plan first. Rows left out of order by a clock stepping back are repaired first.
 */
export class PlanTimesAfterCreation1763805400000 implements MigrationInterface {
  name = 'PlanTimesAfterCreation1763805400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE plans SET updated_at = created_at WHERE updated_at < created_at`);
    await q.query(`UPDATE plans SET published_at = created_at WHERE published_at < created_at`);
    await q.query(`ALTER TABLE plans ADD CONSTRAINT plans_updated_after_created CHECK (updated_at >= created_at)`);
    await q.query(`ALTER TABLE plans ADD CONSTRAINT plans_published_after_created CHECK (published_at >= created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE plans DROP CONSTRAINT plans_published_after_created`);
    await q.query(`ALTER TABLE plans DROP CONSTRAINT plans_updated_after_created`);
  }
}
