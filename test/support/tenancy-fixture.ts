import { randomBytes } from 'node:crypto';
import { Response } from 'supertest';
import { eventually } from './auth-helpers';
import { drainCascades } from './catalog-helpers';
import { createKey, idem } from './tenants';
import { TestApp } from './test-app';
import { seedVerification } from './verification-helpers';

/**
 * The resource kinds an id can name, by the collection that names them in a path (`/v1/<kind>/{id}`)
 * or by a body/query field (`<singular>_id`). `table` is where the kind is stored: a kind whose table
 * has a workspace_id lives in one workspace, the others in the organization (workspaces, users,
 * keys of both modes). `notFound` lists the codes its refusal may carry (the memberships of a plan
 * are named by product: PRODUCT_NOT_ON_PLAN).
 */
export const RESOURCE_KINDS: Record<string, { table: string; notFound: string[] }> = {
  customers: { table: 'customers', notFound: ['CUSTOMER_NOT_FOUND'] },
  customer_verifications: { table: 'customer_verifications', notFound: ['VERIFICATION_NOT_FOUND'] },
  wallets: { table: 'wallets', notFound: ['WALLET_NOT_FOUND'] },
  holds: { table: 'wallet_holds', notFound: ['HOLD_NOT_FOUND'] },
  top_ups: { table: 'wallet_top_ups', notFound: ['TOP_UP_NOT_FOUND'] },
  payment_methods: { table: 'payment_methods', notFound: ['PAYMENT_METHOD_NOT_FOUND'] },
  api_keys: { table: 'api_keys', notFound: ['API_KEY_NOT_FOUND'] },
  workspaces: { table: 'workspaces', notFound: ['WORKSPACE_NOT_FOUND'] },
  approvals: { table: 'approval_requests', notFound: ['APPROVAL_NOT_FOUND'] },
  document_templates: { table: 'document_templates', notFound: ['DOCUMENT_TEMPLATE_NOT_FOUND'] },
  costs: { table: 'costs', notFound: ['COST_NOT_FOUND'] },
  products: { table: 'products', notFound: ['PRODUCT_NOT_FOUND', 'PRODUCT_NOT_ON_PLAN'] },
  product_versions: { table: 'product_versions', notFound: ['VERSION_NOT_FOUND'] },
  plans: { table: 'plans', notFound: ['PLAN_NOT_FOUND'] },
  plan_versions: { table: 'plan_versions', notFound: ['VERSION_NOT_FOUND'] },
  changes: { table: 'changes', notFound: ['CHANGE_NOT_FOUND'] },
  cascade_runs: { table: 'cascade_runs', notFound: ['CASCADE_RUN_NOT_FOUND'] },
  subscriptions: { table: 'subscriptions', notFound: ['SUBSCRIPTION_NOT_FOUND'] },
  migrations: { table: 'plan_migrations', notFound: ['MIGRATION_NOT_FOUND'] },
  webhook_endpoints: { table: 'webhook_endpoints', notFound: ['WEBHOOK_ENDPOINT_NOT_FOUND'] },
  // GET /v1/events/{id}, redeliver, and the deliveries filter `event_id`.
  events: { table: 'events', notFound: ['EVENT_NOT_FOUND'] },
};

/** One workspace's resources: one of every kind (plus the drafts and the second wallet writes need). */
export interface WorkspaceFixture {
  label: string;
  organizationId: string;
  workspaceId: string;
  /** `Authorization` of a principal acting in this workspace (a human session where approvals need one). */
  auth: string;
  /** `X-Workspace-Id` the principal sends, if any. */
  workspaceHeader?: string;
  /** Kind → id. */
  ids: Record<string, string>;
  /** A second wallet (transfer target), the staged drafts of the product and the plan. */
  extra: { wallet2: string; productDraft: string; planDraft: string };
  /** Strings only this workspace's data carries: names, external ids, a balance. Seen anywhere else, they leaked. */
  markers: string[];
}

type Send = (method: 'post' | 'patch' | 'put' | 'get', path: string, body?: object, expected?: number) => Promise<any>;

function sender(t: TestApp, auth: string, workspaceHeader?: string): Send {
  return async (method, path, body, expected) => {
    let request = t.http[method](path).set('Authorization', auth).set('Idempotency-Key', idem());
    if (workspaceHeader) request = request.set('X-Workspace-Id', workspaceHeader);
    const response: Response = method === 'get' ? await request : await request.send(body ?? {});
    if (expected !== undefined && response.status !== expected)
      throw new Error(`${method.toUpperCase()} ${path} → ${response.status} ${response.text} (expected ${expected})`);
    return response.body;
  };
}

/**
 * Creates one resource of every kind in a workspace through the API (a verification is seeded:
 * no live route opens one), each name carrying a marker unique to the workspace, and a balance
 * unique to it. `admin` is a live principal of the organization (it sets the workspace's approval
 * rule); `human` a session of the organization (approvals are requested by humans).
 */
export async function buildWorkspaceFixture(
  t: TestApp,
  options: {
    label: string;
    organizationId: string;
    workspaceId: string;
    auth: string;
    workspaceHeader?: string;
    admin: string;
    human: string;
    balance: string;
  },
): Promise<WorkspaceFixture> {
  const marker = `tnx${options.label}${randomBytes(3).toString('hex')}`;
  const send = sender(t, options.auth, options.workspaceHeader);
  const ids: Record<string, string> = { workspaces: options.workspaceId };

  const customer = await send(
    'post',
    '/v1/customers',
    { name: `Customer ${marker}`, currency: 'EUR', external_id: `ext-${marker}`, email: `${marker}@example.com` },
    201,
  );
  const second = await send('post', '/v1/customers', { name: `Second ${marker}`, currency: 'EUR' }, 201);
  ids.customers = customer.id;
  ids.wallets = customer.primary_wallet_id;
  const wallet2 = second.primary_wallet_id;
  ids.customer_verifications = await seedVerification(
    t,
    { organization_id: options.organizationId },
    options.workspaceId,
    customer.id,
  );
  await send('post', `/v1/wallets/${ids.wallets}/credit`, { amount: options.balance, reason: `Credit ${marker}` }, 200);
  ids.holds = (await send('post', `/v1/wallets/${ids.wallets}/holds`, { amount: '1.00', reason: `Hold ${marker}` }, 201)).id;
  await send(
    'post',
    `/v1/wallets/${ids.wallets}/transfer`,
    { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: wallet2 },
    200,
  );
  ids.payment_methods = (await send('post', `/v1/customers/${ids.customers}/payment_methods`, { token: 'pm_card_visa' }, 201)).id;
  ids.top_ups = (await send('post', `/v1/wallets/${ids.wallets}/top_ups`, { mode: 'hosted_checkout', amount: '5.00' }, 201)).id;
  ids.api_keys = (
    await createKey(
      t,
      options.auth,
      { name: `Key ${marker}`, scopes: ['customers:read'] },
      options.workspaceHeader ? { 'X-Workspace-Id': options.workspaceHeader } : {},
    )
  ).id;
  ids.document_templates = (await send('post', '/v1/document_templates', { name: `Layout ${marker}` }, 201)).id;

  // Approvals: the workspace requires one for wallet.adjust, and a human asks for an adjustment.
  await sender(t, options.admin)(
    'patch',
    `/v1/workspaces/${options.workspaceId}`,
    { settings: { approval_required_for: ['wallet.adjust'] } },
    200,
  );
  const adjust = await sender(t, options.human, options.workspaceId)(
    'post',
    `/v1/wallets/${ids.wallets}/adjust`,
    { amount: '2.00', reason: `Adjust ${marker}` },
    202,
  );
  ids.approvals = adjust.approval.id;

  // Catalog: an ORG cost whose change ran a cascade, a product live at v1 with v2 scheduled and v3
  // staged, a plan live at v1 with v2 staged, a subscription and a migration scheduled for later.
  const cost = await send('post', '/v1/costs', { key: 'tenancy_fee', amount: '1.00', description: `Fee ${marker}` }, 201);
  ids.costs = cost.id;
  const product = await send('post', '/v1/products', { name: `Product ${marker}`, price_expression: 'tenancy_fee * 2' }, 201);
  ids.products = product.id;
  const publish = (subjectKind: string, subjectId: string, staged: string, scheduledFor?: string) =>
    send(
      'post',
      '/v1/changes',
      {
        operation: 'catalog.publish_version',
        subject_kind: subjectKind,
        subject_id: subjectId,
        staged_version_id: staged,
        ...(scheduledFor ? { scheduled_for: scheduledFor } : {}),
      },
      201,
    );
  const applied = await publish('product', product.id, product.draft_version.id);
  ids.product_versions = applied.result.id;
  ids.cascade_runs = (await send('patch', `/v1/costs/${cost.id}`, { amount: '2.00' }, 200)).cascade_run_id;
  const v2 = (await send('patch', `/v1/products/${product.id}`, { price_expression: 'tenancy_fee * 3' }, 200)).draft_version;
  ids.changes = (await publish('product', product.id, v2.id, '2099-01-01T00:00:00Z')).id;
  const productDraft = (await send('patch', `/v1/products/${product.id}`, { price_expression: 'tenancy_fee * 4' }, 200))
    .draft_version.id;
  const plan = await send('post', '/v1/plans', { name: `Plan ${marker}`, external_id: `plan-${marker}` }, 201);
  ids.plans = plan.id;
  const planV1 = (
    await send(
      'post',
      `/v1/plans/${plan.id}/products`,
      { product_id: product.id, included_quantity: '100', refresh_unit: 'month' },
      201,
    )
  ).draft_version;
  await publish('plan', plan.id, planV1.id);
  ids.plan_versions = planV1.id;
  const planDraft = (await send('patch', `/v1/plans/${plan.id}/products/${product.id}`, { included_quantity: '200' }, 200))
    .draft_version.id;
  ids.subscriptions = (await send('post', '/v1/subscriptions', { customer_id: customer.id, plan_id: plan.id }, 201)).id;
  ids.migrations = (
    await send(
      'post',
      `/v1/plans/${plan.id}/migrate`,
      { mode: 'SCHEDULED', target_version: 1, scheduled_at: '2099-01-01T00:00:00Z' },
      200,
    )
  ).migration_id;
  // A webhook endpoint, disabled, and an event delivered to it on request: its delivery fails at once
  // (no request is made to a disabled endpoint), so nothing moves later while the matrix compares digests.
  ids.webhook_endpoints = (
    await send(
      'post',
      '/v1/webhook_endpoints',
      { url: `http://127.0.0.1:9/${marker}`, enabled_events: ['customer.*'], description: `Hook ${marker}` },
      201,
    )
  ).id;
  await send('patch', `/v1/webhook_endpoints/${ids.webhook_endpoints}`, { status: 'disabled' }, 200);
  // The customer's customer.created event, sent again to the endpoint on request (POST /v1/events/{id}/redeliver).
  const created = await send('get', '/v1/events?type=customer.created&limit=100', undefined, 200);
  const event = created.data.find((row: { data: { object: { id: string } } }) => row.data.object.id === customer.id);
  if (!event) throw new Error(`No customer.created event for ${customer.id}`);
  await send('post', `/v1/events/${event.id}/redeliver`, { endpoint_id: ids.webhook_endpoints }, 202);
  ids.events = event.id;
  await eventually(async () => {
    const deliveries = await send('get', `/v1/webhook_endpoints/${ids.webhook_endpoints}/deliveries`);
    return deliveries.data?.[0]?.status === 'failed' ? true : undefined;
  }, 15_000);
  // The run's jobs finish now (run here rather than waiting for the queue's poll), not while the matrix compares digests.
  await drainCascades(t);
  await eventually(
    async () => ((await send('get', `/v1/cascade_runs/${ids.cascade_runs}`)).status === 'completed' ? true : undefined),
    15_000,
  );

  return {
    label: options.label,
    organizationId: options.organizationId,
    workspaceId: options.workspaceId,
    auth: options.auth,
    workspaceHeader: options.workspaceHeader,
    ids,
    extra: { wallet2, productDraft, planDraft },
    markers: [marker, options.balance],
  };
}
