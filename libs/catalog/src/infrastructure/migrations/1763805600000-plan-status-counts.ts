import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Status counts of a workspace's plans without a filter (`GET /v1/plans?counts=status`) read one
 * row per status instead of every plan: the database keeps them, in the transaction that creates,
 * moves or deletes a plan, so they are exact in any snapshot. Filtered counts still count matches.
 */
export class PlanStatusCounts1763805600000 implements MigrationInterface {
  name = 'PlanStatusCounts1763805600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE plan_status_counts (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        status text NOT NULL,
        plans bigint NOT NULL CHECK (plans >= 0),
        PRIMARY KEY (organization_id, workspace_id, status)
      )`);
    await q.query(`
      CREATE FUNCTION plan_status_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.deleted_at IS NULL THEN
          UPDATE plan_status_counts SET plans = plans - 1
           WHERE organization_id = OLD.organization_id AND workspace_id = OLD.workspace_id AND status = OLD.status;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.deleted_at IS NULL THEN
          INSERT INTO plan_status_counts (organization_id, workspace_id, status, plans)
          VALUES (NEW.organization_id, NEW.workspace_id, NEW.status, 1)
          ON CONFLICT (organization_id, workspace_id, status) DO UPDATE SET plans = plan_status_counts.plans + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER plan_status_counts_rows AFTER INSERT OR DELETE ON plans
      FOR EACH ROW EXECUTE FUNCTION plan_status_counts_apply()`);
    await q.query(`CREATE TRIGGER plan_status_counts_moves AFTER UPDATE ON plans
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
      EXECUTE FUNCTION plan_status_counts_apply()`);
    await q.query(`
      INSERT INTO plan_status_counts (organization_id, workspace_id, status, plans)
      SELECT organization_id, workspace_id, status, count(*) FROM plans WHERE deleted_at IS NULL GROUP BY 1, 2, 3`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER plan_status_counts_moves ON plans`);
    await q.query(`DROP TRIGGER plan_status_counts_rows ON plans`);
    await q.query(`DROP FUNCTION plan_status_counts_apply()`);
    await q.query(`DROP TABLE plan_status_counts`);
  }
}
