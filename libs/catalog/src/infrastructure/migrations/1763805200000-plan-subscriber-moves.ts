import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subscriber moves (model §4.8): the period boundary a `next_period` move waits for, one
 * automatic migration per version that went live, and the indexes the subscription list and the
 * move jobs read by.
 */
export class PlanSubscriberMoves1763805200000 implements MigrationInterface {
  name = 'PlanSubscriberMoves1763805200000';

  async up(q: QueryRunner): Promise<void> {
    // Periods renew every cadence unit from the anchor (current_period_start): the first boundary
    // strictly after `after`, computed on UTC calendar dates (month ends clamp as PostgreSQL's
    // interval arithmetic does: Jan 31 + 1 month = Feb 28, + 2 months = Mar 31).
    await q.query(`
      CREATE FUNCTION catalog_period_end_after(anchor timestamptz, cadence text, after timestamptz) RETURNS timestamptz
      LANGUAGE plpgsql IMMUTABLE STRICT AS $$
      DECLARE
        step interval := CASE cadence WHEN 'week' THEN interval '1 week' WHEN 'month' THEN interval '1 month' ELSE interval '1 year' END;
        base timestamp := anchor AT TIME ZONE 'UTC';
        target timestamp := after AT TIME ZONE 'UTC';
        k integer := 1;
      BEGIN
        IF target > base THEN
          -- A lower bound of the boundary count, then at most a few steps forward.
          k := greatest(1, CASE cadence
            WHEN 'week' THEN floor(extract(epoch FROM target - base) / 604800)::integer
            WHEN 'month' THEN ((extract(year FROM target) - extract(year FROM base)) * 12 + extract(month FROM target) - extract(month FROM base))::integer - 1
            ELSE (extract(year FROM target) - extract(year FROM base))::integer - 1 END);
        END IF;
        WHILE base + step * k <= target LOOP
          k := k + 1;
        END LOOP;
        RETURN (base + step * k) AT TIME ZONE 'UTC';
      END $$`);
    await q.query(`
      CREATE UNIQUE INDEX plan_migrations_publish_key ON plan_migrations (organization_id, workspace_id, target_version_id)
        WHERE trigger = 'publish'`);
    await q.query(`
      CREATE INDEX plan_migration_outcomes_due_idx
        ON plan_migration_outcomes (organization_id, workspace_id, migration_id, effective_at, subscription_id)
        WHERE status = 'pending'`);
    await q.query(`
      CREATE INDEX subscriptions_customer_idx ON subscriptions (organization_id, workspace_id, customer_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE INDEX subscriptions_plan_list_idx ON subscriptions (organization_id, workspace_id, plan_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX subscriptions_plan_list_idx`);
    await q.query(`DROP INDEX subscriptions_customer_idx`);
    await q.query(`DROP INDEX plan_migration_outcomes_due_idx`);
    await q.query(`DROP INDEX plan_migrations_publish_key`);
    await q.query(`DROP FUNCTION catalog_period_end_after(timestamptz, text, timestamptz)`);
  }
}
