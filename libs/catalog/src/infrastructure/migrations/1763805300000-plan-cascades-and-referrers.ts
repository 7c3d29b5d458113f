import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog II, plan insight: a product's go-live cascades into the plans that track it `latest`
 * (model §3.5 "Into plans"). A go-live that is not itself part of a cost cascade records a run of
 * its own (trigger `product_go_live`, source = the product version); one inside a cost cascade
 * adds its plan tasks to the cost's run, and `root_run_id` names that run when a late product
 * of the same cascade needs a run of its own. Version referrers read changes by the version they
 * staged or produced: two indexes serve the drill-down and its counts.
 */
export class PlanCascadesAndReferrers1763805300000 implements MigrationInterface {
  name = 'PlanCascadesAndReferrers1763805300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cascade_runs DROP CONSTRAINT cascade_runs_trigger_check`);
    await q.query(
      `ALTER TABLE cascade_runs ADD CONSTRAINT cascade_runs_trigger_check CHECK (trigger IN ('cost_value', 'cost_retire', 'product_go_live'))`,
    );
    await q.query(`ALTER TABLE cascade_runs ADD COLUMN root_run_id uuid`);
    await q.query(
      `ALTER TABLE cascade_runs ADD CONSTRAINT cascade_runs_source_kind CHECK ((trigger = 'product_go_live') = (source_type = 'product'))`,
    );
    await q.query(`ALTER TABLE cascade_runs ADD CONSTRAINT cascade_runs_root_fk FOREIGN KEY (organization_id, workspace_id, root_run_id)
      REFERENCES cascade_runs (organization_id, workspace_id, id)`);
    await q.query(
      `CREATE INDEX changes_staged_version_idx ON changes (organization_id, workspace_id, staged_version_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX changes_result_version_idx ON changes (organization_id, workspace_id, result_version_id, created_at DESC, id DESC)
      WHERE result_version_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX changes_result_version_idx`);
    await q.query(`DROP INDEX changes_staged_version_idx`);
    await q.query(`ALTER TABLE cascade_runs DROP CONSTRAINT cascade_runs_root_fk`);
    await q.query(`ALTER TABLE cascade_runs DROP CONSTRAINT cascade_runs_source_kind`);
    await q.query(`ALTER TABLE cascade_runs DROP COLUMN root_run_id`);
    await q.query(`DELETE FROM cascade_tasks WHERE run_id IN (SELECT id FROM cascade_runs WHERE trigger = 'product_go_live')`);
    await q.query(`DELETE FROM cascade_runs WHERE trigger = 'product_go_live'`);
    await q.query(`ALTER TABLE cascade_runs DROP CONSTRAINT cascade_runs_trigger_check`);
    await q.query(
      `ALTER TABLE cascade_runs ADD CONSTRAINT cascade_runs_trigger_check CHECK (trigger IN ('cost_value', 'cost_retire'))`,
    );
  }
}
