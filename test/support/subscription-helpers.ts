import { MigrationRunner } from '@app/catalog';
import { Clock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { eventually } from './auth-helpers';
import { CatalogClient } from './catalog-helpers';
import { TestTenant } from './tenants';

/** Plans, subscriptions and migrations driven through the API as one tenant's root key. */
export class SubscriptionClient extends CatalogClient {
  constructor(
    api: CatalogClient,
    readonly tenant: TestTenant,
  ) {
    super(api.t, api.auth);
  }

  async customer(name = 'Subscriber GmbH'): Promise<string> {
    const response = await this.post('/v1/customers', { name, currency: 'EUR' });
    expect(response.status).toBe(201);
    return response.body.id;
  }

  /** A draft plan with the given live products as members (terms: included 100 per month). */
  async plan(productIds: string[], body: object = {}): Promise<string> {
    const created = await this.post('/v1/plans', { name: 'Growth', ...body });
    expect(created.status).toBe(201);
    for (const productId of productIds) {
      const added = await this.post(`/v1/plans/${created.body.id}/products`, {
        product_id: productId,
        included_quantity: '100',
        refresh_unit: 'month',
      });
      expect(added.status).toBe(201);
    }
    return created.body.id;
  }

  /** Publishes (or with scheduled_for, schedules) the plan's working draft; returns the change. */
  async publishPlan(planId: string, extra: object = {}): Promise<any> {
    const plan = await this.get(`/v1/plans/${planId}`);
    const response = await this.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'plan',
      subject_id: planId,
      staged_version_id: plan.body.draft_version?.id,
      ...extra,
    });
    if (response.status !== 201) throw new Error(`publish refused: ${JSON.stringify(response.body)}`);
    return response.body;
  }

  /** Stages a change of the plan's content (a membership's included quantity) and publishes it. */
  async republishPlan(planId: string, productId: string, included: string, extra: object = {}): Promise<any> {
    const updated = await this.patch(`/v1/plans/${planId}/products/${productId}`, { included_quantity: included });
    expect(updated.status).toBe(200);
    return this.publishPlan(planId, extra);
  }

  async subscribe(body: Record<string, unknown>): Promise<any> {
    const response = await this.post('/v1/subscriptions', body);
    if (response.status !== 201) throw new Error(`subscribe refused: ${JSON.stringify(response.body)}`);
    return response.body;
  }

  async subscription(id: string): Promise<any> {
    const response = await this.get(`/v1/subscriptions/${id}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  async migration(id: string): Promise<any> {
    const response = await this.get(`/v1/migrations/${id}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  async outcomes(migrationId: string, query = ''): Promise<any[]> {
    const response = await this.get(`/v1/migrations/${migrationId}/outcomes?limit=200${query ? `&${query}` : ''}`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  /** The automatic migrations of a plan (trigger publish), oldest first. */
  async publishMigrations(planId: string): Promise<string[]> {
    const rows: { id: string }[] = await this.t.app
      .get(DataSource)
      .query(`SELECT id FROM plan_migrations WHERE plan_id = $1 AND trigger = 'publish' ORDER BY target_version`, [planId]);
    return rows.map((row) => row.id);
  }

  /**
   * Runs the migration's run job in-process. The queue's own worker may hold a batch meanwhile
   * (this run skips it, nothing moves twice): wait until no outcome due by the app's clock is pending.
   */
  async runMigration(migrationId: string): Promise<void> {
    const job = { organizationId: this.tenant.organization_id, workspaceId: this.tenant.liveWorkspaceId, migrationId };
    await this.t.app.get(MigrationRunner).run(job);
    const db = this.t.app.get(DataSource);
    const now = this.t.app.get(Clock).now();
    await eventually(async () => {
      const [{ due }] = await db.query(
        `SELECT count(*)::int AS due FROM plan_migration_outcomes WHERE migration_id = $1 AND status = 'pending' AND effective_at <= $2`,
        [migrationId, now],
      );
      return due === 0 ? true : undefined;
    }, 10_000);
    // Once more, now that nothing due is held elsewhere: it completes the migration when nothing is pending.
    await this.t.app.get(MigrationRunner).run(job);
  }
}
