import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CatalogClient } from './catalog-helpers';
import { TestTenant } from './tenants';
import { TestApp } from './test-app';

/** A plan created through the API (201 asserted); returns its body. */
export async function createPlan(api: CatalogClient, body: object = {}): Promise<any> {
  const response = await api.post('/v1/plans', { name: 'Growth', ...body });
  if (response.status !== 201) console.log(JSON.stringify(response.body));
  expect(response.status).toBe(201);
  return response.body;
}

/** Adds a product to the plan's working draft (201 asserted); returns the plan. */
export async function addMembership(api: CatalogClient, planId: string, productId: string, terms: object = {}): Promise<any> {
  const response = await api.post(`/v1/plans/${planId}/products`, { product_id: productId, ...terms });
  if (response.status !== 201) console.log(JSON.stringify(response.body));
  expect(response.status).toBe(201);
  return response.body;
}

/** The body of a change publishing (or, with `scheduled_for`, scheduling) a plan's working draft. */
export async function planChangeBody(api: CatalogClient, planId: string, extra: object = {}): Promise<object> {
  const plan = (await api.get(`/v1/plans/${planId}`)).body;
  return {
    operation: 'catalog.publish_version',
    subject_kind: 'plan',
    subject_id: planId,
    staged_version_id: plan.draft_version?.id,
    ...extra,
  };
}

/** Publishes (or schedules) the plan's working draft; returns the change (201 asserted). */
export async function publishPlan(api: CatalogClient, planId: string, extra: object = {}): Promise<any> {
  const response = await api.post('/v1/changes', await planChangeBody(api, planId, extra));
  if (response.status !== 201) console.log(JSON.stringify(response.body));
  expect(response.status).toBe(201);
  return response.body;
}

/** A live product, then a plan holding it (terms as given) published once; returns both. */
export async function livePlan(api: CatalogClient, terms: object = {}, plan: object = {}): Promise<{ plan: any; product: any }> {
  const product = await api.liveProduct('2');
  const created = await createPlan(api, plan);
  await addMembership(api, created.id, product.id, terms);
  await publishPlan(api, created.id);
  return { plan: (await api.get(`/v1/plans/${created.id}`)).body, product };
}

export interface SubscriptionRow {
  planId: string;
  planVersionId: string;
  status?: 'active' | 'canceled';
  billingCadence?: 'week' | 'month' | 'year';
  planTrackMode?: 'latest' | 'pinned';
  versionChangeStrategy?: 'immediate' | 'next_period';
  createdAt?: Date;
  /** Product pins: product id → product version id. */
  pins?: Record<string, string>;
}

/**
 * Subscriptions written by SQL: the subscriptions API is another engineer's part of issue 11,
 * and impact, the cadence check, referrers and usage only read these rows. The customer is
 * created through the API (it owns a wallet).
 */
export async function insertSubscriptions(
  t: TestApp,
  tenant: TestTenant,
  api: CatalogClient,
  rows: SubscriptionRow[],
): Promise<string[]> {
  const customer = await api.post('/v1/customers', { name: `Subscriber ${randomUUID().slice(0, 8)}`, currency: 'EUR' });
  expect(customer.status).toBe(201);
  const db = t.app.get(DataSource);
  const ids: string[] = [];
  for (const row of rows) {
    const id = randomUUID();
    const created = row.createdAt ?? new Date();
    const status = row.status ?? 'active';
    await db.query(
      `INSERT INTO subscriptions (organization_id, workspace_id, id, customer_id, plan_id, plan_version_id, status, billing_cadence, plan_track_mode,
         version_change_strategy, current_period_start, current_period_end, created_at, updated_at, canceled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14)`,
      [
        tenant.organization_id,
        tenant.liveWorkspaceId,
        id,
        customer.body.id,
        row.planId,
        row.planVersionId,
        status,
        row.billingCadence ?? 'month',
        row.planTrackMode ?? 'pinned',
        row.versionChangeStrategy ?? 'next_period',
        new Date('2026-11-01T00:00:00Z'),
        new Date('2026-12-01T00:00:00Z'),
        created,
        status === 'canceled' ? created : null,
      ],
    );
    for (const [productId, productVersionId] of Object.entries(row.pins ?? {})) {
      await db.query(
        `INSERT INTO subscription_product_pins (organization_id, workspace_id, subscription_id, product_id, product_version_id) VALUES ($1, $2, $3, $4, $5)`,
        [tenant.organization_id, tenant.liveWorkspaceId, id, productId, productVersionId],
      );
    }
    ids.push(id);
  }
  return ids;
}
