import { Response } from 'supertest';
import { CASCADE_RUN_JOB, CASCADE_TASK_JOB, CostCascades, PLAN_CASCADE_TASK_JOB, PlanCascades } from '@app/catalog';
import { Clock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { idem } from './tenants';
import { TestApp } from './test-app';

/** Drives the catalog through its HTTP API as one principal. */
export class CatalogClient {
  constructor(
    readonly t: TestApp,
    readonly auth: string,
  ) {}

  post(path: string, body: object = {}, key = idem()): Promise<Response> {
    return this.t.http.post(path).set('Authorization', this.auth).set('Idempotency-Key', key).send(body);
  }

  patch(path: string, body: object): Promise<Response> {
    return this.t.http.patch(path).set('Authorization', this.auth).send(body);
  }

  get(path: string): Promise<Response> {
    return this.t.http.get(path).set('Authorization', this.auth);
  }

  delete(path: string): Promise<Response> {
    return this.t.http.delete(path).set('Authorization', this.auth);
  }

  async orgCost(key: string, value: { amount: string } | { expression: string }): Promise<any> {
    const response = await this.post('/v1/costs', { key, ...value });
    if (response.status !== 201) console.log(JSON.stringify(response.body));
    expect(response.status).toBe(201);
    return response.body;
  }

  async product(body: object = {}): Promise<any> {
    const response = await this.post('/v1/products', { name: 'Seats', ...body });
    expect(response.status).toBe(201);
    return response.body;
  }

  async productCost(productId: string, key: string, value: { amount: string } | { expression: string }): Promise<any> {
    const response = await this.post(`/v1/products/${productId}/costs`, { key, ...value });
    expect(response.status).toBe(201);
    return response.body;
  }

  /** Publishes the product's working draft now; returns the applied change. */
  async publish(productId: string, extra: object = {}): Promise<any> {
    const product = await this.get(`/v1/products/${productId}`);
    const response = await this.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'product',
      subject_id: productId,
      staged_version_id: product.body.draft_version?.id,
      ...extra,
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  /** A live product whose unit price is the formula over the given ORG costs. */
  async liveProduct(priceExpression: string): Promise<any> {
    const product = await this.product({ price_expression: priceExpression });
    await this.publish(product.id);
    return (await this.get(`/v1/products/${product.id}`)).body;
  }
}

/**
 * Runs every due cascade job in-process until none is left (the queue's workers may also pick
 * some): cost runs, product tasks, and the plan tasks product go-lives enqueue (without waiting
 * for their 2-second delay).
 */
export async function drainCascades(t: TestApp): Promise<void> {
  const cascades = t.app.get(CostCascades);
  const planCascades = t.app.get(PlanCascades);
  const dataSource = t.app.get(DataSource);
  // The app's clock, not the database's: a run is due when the app would enqueue it as due.
  const clock = t.app.get(Clock);
  for (;;) {
    const runs: { organization_id: string; workspace_id: string; id: string }[] = await dataSource.query(
      `SELECT organization_id, workspace_id, id FROM cascade_runs WHERE status = 'pending' AND effective_at <= $1`,
      [clock.now()],
    );
    const tasks: { organization_id: string; workspace_id: string; run_id: string; subject_kind: string; subject_id: string }[] =
      await dataSource.query(`SELECT organization_id, workspace_id, run_id, subject_kind, subject_id FROM cascade_tasks WHERE status = 'pending'
        ORDER BY subject_kind DESC`);
    if (runs.length === 0 && tasks.length === 0) return;
    for (const run of runs)
      await cascades.expand({ organizationId: run.organization_id, workspaceId: run.workspace_id, runId: run.id });
    for (const task of tasks) {
      const tenant = { organizationId: task.organization_id, workspaceId: task.workspace_id, runId: task.run_id };
      if (task.subject_kind === 'product') {
        await cascades.runTask({ ...tenant, productId: task.subject_id });
        continue;
      }
      // A plan task's source (the product version that enqueued it) travels in its queued job.
      const [job] = await dataSource.query(
        `SELECT data FROM pgboss.job WHERE name = $1 AND singleton_key = $2 ORDER BY created_on DESC LIMIT 1`,
        [PLAN_CASCADE_TASK_JOB, `${task.run_id}:plan:${task.subject_id}`],
      );
      const source = job.data.source;
      await planCascades.runTask({ ...tenant, planId: task.subject_id, source });
    }
  }
}

export { CASCADE_RUN_JOB, CASCADE_TASK_JOB };

/** The product as read back (the working view). */
export async function productOf(api: CatalogClient, productId: string): Promise<any> {
  const response = await api.get(`/v1/products/${productId}`);
  expect(response.status).toBe(200);
  return response.body;
}

/** Every version row of a product, newest number first. */
export async function versionsOf(api: CatalogClient, productId: string): Promise<any[]> {
  const response = await api.get(`/v1/products/${productId}/versions?limit=200`);
  expect(response.status).toBe(200);
  return response.body.data;
}

/** The product's costs in a view (`view=draft`, `view=head`, `product_version_id=…`, or the default). */
export async function productCostsOf(api: CatalogClient, productId: string, query = ''): Promise<any[]> {
  const response = await api.get(`/v1/products/${productId}/costs${query ? `?${query}` : ''}`);
  expect(response.status).toBe(200);
  return response.body.data;
}

/** A change body publishing (or, with `scheduled_for`, scheduling) a staged version of a product. */
export function changeBody(productId: string, stagedVersionId: string, extra: object = {}): object {
  return {
    operation: 'catalog.publish_version',
    subject_kind: 'product',
    subject_id: productId,
    staged_version_id: stagedVersionId,
    ...extra,
  };
}

/** Schedules the product's working draft for `at`; returns the pending change. */
export async function scheduleDraft(api: CatalogClient, productId: string, at: Date, extra: object = {}): Promise<any> {
  const product = await productOf(api, productId);
  const response = await api.post(
    '/v1/changes',
    changeBody(productId, product.draft_version?.id, { scheduled_for: at.toISOString(), ...extra }),
  );
  if (response.status !== 201) console.log(JSON.stringify(response.body));
  expect(response.status).toBe(201);
  return response.body;
}
