import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { QueryRunner } from 'typeorm';
import { FxRatesPerWorkspace1763801200000 } from '../../../libs/billing-wallet/src/infrastructure/migrations/1763801200000-fx-rates-per-workspace';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/** The migration that makes FX rates belong to a workspace, against rows written before it. */
describe('Migration 1763801200000: FX rates per workspace', () => {
  let database: TestDatabase;
  let sql: Client;
  const migration = new FxRatesPerWorkspace1763801200000();
  const organizationId = randomUUID();
  const workspaces = { live: randomUUID(), sandbox: randomUUID(), qa: randomUUID() };

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
    await sql.query(`INSERT INTO organizations (id, name, created_at) VALUES ($1, 'Before', now())`, [organizationId]);
    for (const [slug, id] of Object.entries(workspaces)) {
      await sql.query(
        `INSERT INTO workspaces (organization_id, id, name, slug, mode, is_default, created_at, updated_at)
         VALUES ($1, $2, $3, $3, $4, $5, now(), now())`,
        [organizationId, id, slug, slug === 'live' ? 'live' : 'sandbox', slug !== 'qa'],
      );
    }
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
  });

  const runner = () => ({ query: (text: string) => sql.query(text).then((result) => result.rows) }) as unknown as QueryRunner;

  async function rates(): Promise<Array<{ workspace_id: string; rate: string }>> {
    const { rows } = await sql.query(
      `SELECT workspace_id, rate::text FROM fx_rates WHERE organization_id = $1 ORDER BY workspace_id`,
      [organizationId],
    );
    return rows;
  }

  it('copies each organization-wide rate to every workspace of its organization; down keeps the live default’s', async () => {
    await migration.down(runner());
    await sql.query(
      `INSERT INTO fx_rates (organization_id, from_currency, to_currency, rate, updated_at, updated_by_type)
       VALUES ($1, 'USD', 'EUR', 0.92, now(), 'api_key')`,
      [organizationId],
    );
    await migration.up(runner());
    expect(await rates()).toEqual(
      Object.values(workspaces)
        .sort()
        .map((workspace_id) => ({ workspace_id, rate: '0.920000000000' })),
    );
    // From now on each workspace's copy is its own, and the key holds it.
    await sql.query(`UPDATE fx_rates SET rate = 1000 WHERE workspace_id = $1`, [workspaces.sandbox]);
    const live = (await rates()).find((row) => row.workspace_id === workspaces.live);
    expect(live?.rate).toBe('0.920000000000');
    await expect(
      sql.query(
        `INSERT INTO fx_rates (organization_id, workspace_id, from_currency, to_currency, rate, updated_at, updated_by_type)
         VALUES ($1, $2, 'USD', 'EUR', 1, now(), 'api_key')`,
        [organizationId, workspaces.live],
      ),
    ).rejects.toThrow(/duplicate key/);

    await migration.down(runner());
    const { rows } = await sql.query(`SELECT rate::text FROM fx_rates WHERE organization_id = $1`, [organizationId]);
    expect(rows).toEqual([{ rate: '0.920000000000' }]);
    await migration.up(runner());
  });
});
