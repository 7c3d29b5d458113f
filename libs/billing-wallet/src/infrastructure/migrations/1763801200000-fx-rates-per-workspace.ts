import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * FX rates belong to a workspace: a rate set in the sandbox never feeds a live transfer. Each
 * existing organization-wide rate is copied to every workspace of its organization (live and
 * sandbox alike), so no transfer that converted before stops converting; from then on each
 * workspace's copy changes on its own. Down keeps the live default workspace's rates.
 */
export class FxRatesPerWorkspace1763801200000 implements MigrationInterface {
  name = 'FxRatesPerWorkspace1763801200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fx_rates DROP CONSTRAINT fx_rates_pkey`);
    await q.query(`ALTER TABLE fx_rates ADD COLUMN workspace_id uuid`);
    await q.query(`
      INSERT INTO fx_rates (organization_id, workspace_id, from_currency, to_currency, rate, updated_at, updated_by_type,
                            updated_by_id)
      SELECT r.organization_id, w.id, r.from_currency, r.to_currency, r.rate, r.updated_at, r.updated_by_type, r.updated_by_id
        FROM fx_rates r JOIN workspaces w ON w.organization_id = r.organization_id
       WHERE r.workspace_id IS NULL`);
    await q.query(`DELETE FROM fx_rates WHERE workspace_id IS NULL`);
    await q.query(`ALTER TABLE fx_rates ALTER COLUMN workspace_id SET NOT NULL`);
    await q.query(`ALTER TABLE fx_rates ADD PRIMARY KEY (organization_id, workspace_id, from_currency, to_currency)`);
    await q.query(`
      ALTER TABLE fx_rates ADD CONSTRAINT fx_rates_workspace_fkey
        FOREIGN KEY (organization_id, workspace_id) REFERENCES workspaces (organization_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fx_rates DROP CONSTRAINT fx_rates_workspace_fkey`);
    await q.query(`ALTER TABLE fx_rates DROP CONSTRAINT fx_rates_pkey`);
    await q.query(`
      DELETE FROM fx_rates r
       WHERE NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.organization_id = r.organization_id AND w.id = r.workspace_id
                            AND w.mode = 'live' AND w.is_default)`);
    await q.query(`ALTER TABLE fx_rates DROP COLUMN workspace_id`);
    await q.query(`ALTER TABLE fx_rates ADD PRIMARY KEY (organization_id, from_currency, to_currency)`);
  }
}
