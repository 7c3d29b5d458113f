import { randomUUID } from 'node:crypto';
import { Response } from 'supertest';
import { OutboxRelay } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { bodyIdFields, DocumentedOperation, documentedOperations, queryNames, withField } from '../support/openapi-walk';
import { tableDigest } from '../support/table-digest';
import { buildWorkspaceFixture, RESOURCE_KINDS, WorkspaceFixture } from '../support/tenancy-fixture';
import { createTenant, idem, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(180_000);

/**
 * Quality bar R6. Two organizations with two workspaces each (live and sandbox), one resource of
 * every kind in each. For every documented operation and every place an id can appear (path
 * parameter, `…_id` body field however nested, `…_id` query parameter), a principal of one
 * workspace names the resource of the same kind of another workspace of its organization and of
 * the other organization: the answer is exactly the answer to an id nobody has (404 with the
 * kind's code, or a refusal the route gives before any lookup), never 2xx or 5xx, it changes no
 * row, and it carries none of the foreign resource's data. Lists, cursors, counts and ETags are
 * walked the same way, and every write refuses mass-assigned fields with 400.
 */

/** Path parameters that name no resource: the value they take. A new one must be added here. */
const FIXED_PATH_VALUES: Record<string, string> = {
  version: '1',
  document_type: 'invoice',
  from: 'USD',
  to: 'EUR',
};
/** `…_id` fields that hold the caller's own text, not a reference to a resource. */
const NOT_REFERENCES = ['external_id', 'reference_id', 'tax_rule_id'];
/** Field names whose kind is not their own name. */
const FIELD_KINDS: Record<string, string> = { principal: 'api_keys', resource: 'customers', endpoint: 'webhook_endpoints' };
/** Query a route requires to answer at all. */
const REQUIRED_QUERIES: Record<string, string> = { '/v1/plans/{id}/versions/{version}/referrers': 'type=subscription' };
/** Mass-assignable fields: what a response shows but no client may set. */
const MASS_FIELDS = [
  'id',
  'object',
  'organization_id',
  'workspace_id',
  'version',
  'created_at',
  'updated_at',
  'balance',
  'cash_balance',
  'promotional_balance',
  'held_balance',
  'available_balance',
];
/**
 * Idempotency records are left out of the "no side effect" digest: the contract stores every
 * answer the handler gave, 4xx included, under the caller's own key, so a refused POST writes the
 * caller's record of its own refusal by design. `last_used_at` is bookkeeping of the caller's key.
 */
/** Requests in flight at once (the matrix is a few thousand requests; the machine has 2 cores). */
const PARALLEL = Number(process.env.TENANCY_PARALLEL ?? 4);

/**
 * Runs `work` over `items`, `width` at a time. After a failure no new item starts, so a failed
 * test's requests do not run on into the next test's digests.
 */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (!failed && next < items.length) {
        try {
          await work(items[next++]);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    }),
  );
}

/** Bookkeeping aside: idempotency records, and rate counters (a thumbnail that renders spends its organization's render budget). */
const DIGEST = { skip: ['idempotency_records', 'rate_limit_windows'], ignoredColumns: ['last_used_at'] };

/** A body that passes validation, built of the acting workspace's own ids, so that the one foreign id is what is refused. */
function validBody(operation: DocumentedOperation, own: WorkspaceFixture): object {
  const ids = own.ids;
  const bodies: Record<string, object> = {
    'POST /v1/api_keys': { name: 'Mass', scopes: ['customers:read'] },
    'PATCH /v1/api_keys/{id}': { name: 'Hijacked', scopes: ['customers:read'] },
    'POST /v1/workspaces': { name: 'Mass', slug: 'mass-assigned', mode: 'live' },
    'POST /v1/users': { email: 'mass@example.com', password: 'a long passphrase', role: 'viewer' },
    'POST /v1/customers': { name: 'Mass', currency: 'EUR' },
    'POST /v1/products': { name: 'Mass' },
    'POST /v1/plans': { name: 'Mass' },
    'POST /v1/document_templates': { name: 'Mass' },
    'POST /v1/wallets/{id}/credit': { amount: '1.00' },
    'POST /v1/wallets/{id}/debit': { amount: '1.00' },
    'POST /v1/wallets/{id}/adjust': { amount: '1.00' },
    'POST /v1/wallets/{id}/holds': { amount: '1.00' },
    'POST /v1/wallets/{id}/transfer': { amount: { value: '1.00', currency: 'EUR' }, target_wallet_id: own.extra.wallet2 },
    'POST /v1/wallets/{id}/top_ups': { mode: 'off_session', payment_method_id: ids.payment_methods, amount: '5.00' },
    'POST /v1/wallets': { customer_id: ids.customers, currency: 'USD' },
    'PATCH /v1/wallets/{id}': { auto_topup_payment_method_id: ids.payment_methods },
    'POST /v1/customers/{id}/payment_methods': { token: 'pm_card_visa' },
    'PATCH /v1/workspaces/{id}': { name: 'Hijacked' },
    'PATCH /v1/customer_verifications/{id}': { status: 'manual' },
    'POST /v1/test_helpers/customer_verifications': { customer_id: ids.customers, verification_type: 'kyc' },
    'PATCH /v1/document_templates/{id}': { expected_version: 1, name: 'Hijacked' },
    'POST /v1/costs': { key: 'hijacked', amount: '1.00' },
    'POST /v1/costs/evaluate': { expression: 'tenancy_fee * 2' },
    'PATCH /v1/costs/{id}': { amount: '2.00' },
    'POST /v1/products/{id}/costs': { key: 'hijacked', amount: '1.00' },
    'PATCH /v1/products/{id}': { name: 'Hijacked' },
    'PATCH /v1/plans/{id}': { name: 'Hijacked' },
    'POST /v1/plans/{id}/products': { product_id: ids.products },
    'PATCH /v1/plans/{id}/products/{product_id}': { max_quantity: 2 },
    'PATCH /v1/plans/{id}/versions/{version}': { release_name: 'Hijacked' },
    'POST /v1/plans/republish': { plan_ids: [ids.plans] },
    'POST /v1/plans/{id}/migrate': { mode: 'PREVIEW', target_version: 1 },
    'POST /v1/changes': {
      operation: 'catalog.publish_version',
      subject_kind: 'plan',
      subject_id: ids.plans,
      staged_version_id: own.extra.planDraft,
      pins: [{ product_id: ids.products, product_version_id: ids.product_versions }],
    },
    'POST /v1/subscriptions': {
      customer_id: ids.customers,
      plan_id: ids.plans,
      product_pins: [{ product_id: ids.products, product_version_id: ids.product_versions }],
    },
    'PUT /v1/fx_rates/{from}/{to}': { rate: '0.9' },
    'POST /v1/wallet_debits': { debits: [{ wallet_id: ids.wallets, amount: '1.00', reference: 'tenancy-matrix' }] },
    'POST /v1/events/{id}/redeliver': { endpoint_id: ids.webhook_endpoints },
  };
  return bodies[operation.label] ?? {};
}

/** The kind a path parameter, body field or query parameter names; undefined when it names none. */
function kindOf(operation: DocumentedOperation, place: string, body: Record<string, any> = {}): string | undefined {
  const name = place.split('.').pop()!.replace(/\[\]$/, '');
  if (name === 'id') return operation.path.split('/{id}')[0].split('/').pop();
  if (NOT_REFERENCES.includes(name) || !/_ids?$/.test(name)) return undefined;
  const base = name.replace(/_ids?$/, '');
  if (FIELD_KINDS[base]) return FIELD_KINDS[base];
  if (base === 'subject') return `${body.subject_kind}s`;
  if (base === 'staged_version') return `${body.subject_kind}_versions`;
  if (base === 'base_version') return `${operation.path.split('/')[2].replace(/s$/, '')}_versions`;
  const kinds = Object.keys(RESOURCE_KINDS);
  const singular = (kind: string) => kind.replace(/s$/, '');
  return (
    kinds.find((kind) => singular(kind) === base) ??
    kinds.find((kind) => base.endsWith(`_${singular(kind)}`)) ??
    `unknown:${base}`
  );
}

function concretePath(operation: DocumentedOperation, values: Record<string, string>): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => values[name]);
  const required = REQUIRED_QUERIES[operation.path];
  return required ? `${path}?${required}` : path;
}

function appendQuery(path: string, query: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

interface Viewpoint {
  own: WorkspaceFixture;
  principal: string;
  /** The other workspace of the organization, and the other organization's workspace of the same mode. */
  others: Array<{ relation: 'workspace' | 'organization'; fixture: WorkspaceFixture; principal: string; governs: boolean }>;
  /**
   * A live principal governs its organization: organization-level kinds (keys, workspaces) and
   * routes reach every workspace of it. A sandbox principal reaches its own workspace only.
   */
  governs: boolean;
  /** What only the other organization has beyond its workspaces' data (its owner's address). */
  otherOrganizationMarkers: string[];
}

describe('Tenancy matrix (R6): every route × method × id place, with another workspace’s and another organization’s ids', () => {
  let t: TestApp;
  let db: DataSource;
  let document: any;
  let operations: DocumentedOperation[];
  let a: TestTenant;
  let b: TestTenant;
  let viewpoints: Viewpoint[];
  /** Kinds stored per organization (their table has no workspace_id): another workspace of the same organization may name them. */
  let organizationKinds: Set<string>;
  /**
   * Organization-level reads (a sandbox principal is refused them: SANDBOX_PRINCIPAL_FORBIDDEN) show
   * every workspace of the organization: another workspace's ids are not foreign to them.
   */
  const organizationRoutes = new Set<string>();
  const tally = { path: 0, body: 0, query: 0, lists: 0, cursors: 0, counts: 0, etags: 0, mass: 0 };
  const refusedBeforeLookup = new Set<string>();
  /** Operation × place pairs probed, and the kinds of foreign id sent. */
  const probedPlaces = new Set<string>();
  const probedKinds = new Set<string>();

  /**
   * The digest once nothing moves: the fixture's outbox deliveries and queue jobs settle before a
   * block starts, so a change seen after it is the block's own.
   */
  async function settledDigest(): Promise<Record<string, string>> {
    let previous = await tableDigest(db, DIGEST);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const current = await tableDigest(db, DIGEST);
      if (JSON.stringify(current) === JSON.stringify(previous)) return current;
      previous = current;
    }
  }

  beforeAll(async () => {
    const started = Date.now();
    t = await createTestApp();
    db = t.app.get(DataSource);
    a = await createTenant(t, { withOwner: true });
    b = await createTenant(t, { withOwner: true });
    const aHuman = await signIn(t, a.owner!.email, a.owner!.password);
    const bHuman = await signIn(t, b.owner!.email, b.owner!.password);
    document = (await t.http.get('/openapi.json').expect(200)).body;
    operations = documentedOperations(document).filter((operation) => operation.secured);
    const build = (label: string, tenant: TestTenant, human: string, sandbox: boolean, balance: string) =>
      buildWorkspaceFixture(t, {
        label,
        organizationId: tenant.organization_id,
        workspaceId: sandbox ? tenant.sandboxWorkspaceId : tenant.liveWorkspaceId,
        auth: sandbox ? tenant.sandboxAuth : tenant.auth,
        admin: tenant.auth,
        human,
        balance,
      });
    // The four workspaces share nothing: built side by side.
    const [A1, A2, B1, B2] = await Promise.all([
      build('A1', a, aHuman, false, '101.11'),
      build('A2', a, aHuman, true, '202.22'),
      build('B1', b, bHuman, false, '303.33'),
      build('B2', b, bHuman, true, '404.44'),
    ]);
    // A1 acts through its owner's session (a human: approvals answer humans only), A2 through the sandbox key.
    viewpoints = [
      {
        own: A1,
        principal: aHuman,
        others: [
          { relation: 'workspace', fixture: A2, principal: a.sandboxAuth, governs: false },
          { relation: 'organization', fixture: B1, principal: bHuman, governs: true },
        ],
        otherOrganizationMarkers: [b.owner!.email, b.organization_id],
        governs: true,
      },
      {
        own: A2,
        principal: a.sandboxAuth,
        others: [
          { relation: 'workspace', fixture: A1, principal: aHuman, governs: true },
          { relation: 'organization', fixture: B2, principal: b.sandboxAuth, governs: false },
        ],
        otherOrganizationMarkers: [b.owner!.email, b.organization_id],
        governs: false,
      },
    ];
    const scoped: Array<{ table_name: string }> = await db.query(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'workspace_id'`,
    );
    const workspaceTables = new Set(scoped.map((row) => row.table_name));
    organizationKinds = new Set(Object.keys(RESOURCE_KINDS).filter((kind) => !workspaceTables.has(RESOURCE_KINDS[kind].table)));
    for (const operation of operations.filter((candidate) => candidate.method === 'get')) {
      const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => FIXED_PATH_VALUES[name] ?? randomUUID());
      const response = await t.http.get(path).set('Authorization', a.sandboxAuth);
      if (response.body?.error?.code === 'SANDBOX_PRINCIPAL_FORBIDDEN') organizationRoutes.add(operation.label);
    }
    await t.app.get(OutboxRelay).wake();
    console.log(
      `tenancy fixture: 2 organizations × 2 workspaces × ${Object.keys(A1.ids).length} kinds in ${Date.now() - started} ms`,
    );
  });

  afterAll(async () => {
    console.log(
      `tenancy matrix: ${new Set([...probedPlaces].map((entry) => entry.split(' · ')[0])).size} operations with ` +
        `${probedPlaces.size} id places, each × 2 foreign sources (other workspace, other organization) × 2 viewpoints, ` +
        `${probedKinds.size} kinds; checks: ${JSON.stringify(tally)} (mass: fields refused); ` +
        `organization-level kinds ${[...(organizationKinds ?? [])].sort().join(', ')} and routes ${[...organizationRoutes].sort().join(', ')} ` +
        `(another workspace of the organization may name them); refused before any lookup: ${[...refusedBeforeLookup].sort().join(', ') || 'none'}`,
    );
    await t?.close();
  });

  function send(
    operation: DocumentedOperation,
    principal: string,
    path: string,
    body: object = {},
    headers: Record<string, string> = {},
  ) {
    const request = t.http[operation.method](path).set('Authorization', principal).set('Idempotency-Key', idem()).set(headers);
    return operation.method === 'get' || operation.method === 'delete' ? request : request.send(body);
  }

  /** Own ids for every path parameter of the operation (fixed values for those naming no resource). */
  function ownPathValues(operation: DocumentedOperation, own: WorkspaceFixture): Record<string, string> {
    return Object.fromEntries(
      operation.pathParams.map((name) => {
        if (FIXED_PATH_VALUES[name] !== undefined) return [name, FIXED_PATH_VALUES[name]];
        const kind = kindOf(operation, name)!;
        return [name, own.ids[kind]];
      }),
    );
  }

  function operationOf(label: string): DocumentedOperation {
    return operations.find((operation) => operation.label === label)!;
  }

  /** What a foreign answer must not carry: the other workspace's markers and every id but the one sent. */
  function expectNoLeak(context: object, response: Response, foreign: WorkspaceFixture, sent: string): void {
    const text = response.text ?? '';
    const leaked = [...foreign.markers, ...Object.values(foreign.ids), ...Object.values(foreign.extra)].filter(
      (value) => value !== sent && text.includes(value),
    );
    expect({ ...context, leaked }).toEqual({ ...context, leaked: [] });
  }

  /** The foreign answer is the unknown-id answer: 404 with the kind's code, or a refusal before any lookup (403). */
  function expectRefusedAsUnknown(context: Record<string, unknown>, kind: string, foreign: Response, unknown: Response): void {
    const seen = { ...context, status: foreign.status, code: foreign.body?.error?.code };
    expect(seen).toEqual({ ...context, status: unknown.status, code: unknown.body?.error?.code });
    if (foreign.status === 404) {
      // The kind's own code, or that of a resource the path nests under it (a hold looked up on a
      // wallet it is not on: HOLD_NOT_FOUND), as for an unknown id.
      const nested = [...String(context.route).matchAll(/\{(\w+)\}/g)].map((match) =>
        kindOf(operationOf(String(context.route)), match[1]),
      );
      const codes = [kind, ...nested].flatMap((name) => (name && RESOURCE_KINDS[name] ? RESOURCE_KINDS[name].notFound : []));
      expect({ ...seen, kind }).toEqual({ ...seen, kind, code: expect.stringMatching(new RegExp(`^(${codes.join('|')})$`)) });
    } else if (foreign.status === 400 && String(context.place).startsWith('body ')) {
      // A field this route refuses whatever it names (a product_id on an ORG cost): not a reference here.
      const field = String(context.place).slice(5);
      const params = (foreign.body.error.errors ?? [{ param: foreign.body.error.param }]).map((error: any) => error.param);
      expect({ ...context, params }).toEqual({ ...context, params: [field] });
      refusedBeforeLookup.add(`${context.route} ${field} ${seen.code}`);
    } else if (foreign.status === 200 && context.route === 'POST /v1/wallet_debits') {
      // A batch answers item by item (api-contract §5): its one item, naming the foreign id, is that item's 404, as for an unknown id.
      const item = (response: Response) => ({ status: response.body.data[0].status, code: response.body.data[0].error?.code });
      expect({ ...context, item: item(foreign) }).toEqual({ ...context, item: item(unknown) });
      expect({ ...context, item: item(foreign) }).toEqual({
        ...context,
        item: { status: 404, code: expect.stringMatching(new RegExp(`^(${RESOURCE_KINDS[kind].notFound.join('|')})$`)) },
      });
    } else if (foreign.status === 422) {
      // A reference checked against the caller's own data, not looked up (a pin naming a product
      // the staged draft does not carry: 422 INVALID_PIN), refused exactly as an unknown id.
      refusedBeforeLookup.add(`${context.route} ${context.place} ${seen.code}`);
    } else {
      // Check order (contract §1): authentication, workspace, scope, then the resource. A route
      // this principal may not use at all refuses before it looks anything up.
      if (foreign.status !== 403)
        throw new Error(`not refused as an unknown id: ${JSON.stringify(context)} → ${foreign.status} ${foreign.text}`);
      refusedBeforeLookup.add(`${context.route} ${seen.code}`);
    }
  }

  it('has a fixture for every resource kind an id names anywhere in the document', () => {
    const missing = new Set<string>();
    for (const operation of operations) {
      for (const name of operation.pathParams) {
        if (FIXED_PATH_VALUES[name] !== undefined) continue;
        const kind = kindOf(operation, name);
        if (!kind || !viewpoints[0].own.ids[kind]) missing.add(`${operation.label} path {${name}} → ${kind}`);
      }
      const body = validBody(operation, viewpoints[0].own) as Record<string, any>;
      for (const field of bodyIdFields(document, operation.bodySchema)) {
        const kind = kindOf(operation, field, body);
        if (kind && !viewpoints[0].own.ids[kind]) missing.add(`${operation.label} body ${field} → ${kind}`);
      }
      for (const name of queryNames(operation)) {
        const kind = kindOf(operation, name);
        if (kind && !viewpoints[0].own.ids[kind]) missing.add(`${operation.label} query ${name} → ${kind}`);
      }
    }
    // A new resource kind (a `{thing_id}`, a `thing_id` field) needs a fixture, not a silent skip.
    expect([...missing]).toEqual([]);
  });

  /** Every place an id can appear in an operation: path parameters, body fields (nested too), query parameters. */
  function placesOf(
    operation: DocumentedOperation,
    own: WorkspaceFixture,
  ): Array<{ place: string; kind: string; request: (id: string) => { path: string; body: object } }> {
    const ownValues = ownPathValues(operation, own);
    const baseBody = validBody(operation, own) as Record<string, any>;
    const path = concretePath(operation, ownValues);
    return [
      ...operation.pathParams
        .filter((name) => FIXED_PATH_VALUES[name] === undefined)
        .map((name) => ({
          place: `path {${name}}`,
          kind: kindOf(operation, name)!,
          request: (id: string) => ({ path: concretePath(operation, { ...ownValues, [name]: id }), body: baseBody }),
        })),
      ...bodyIdFields(document, operation.bodySchema).flatMap((field) => {
        const kind = kindOf(operation, field, baseBody);
        const value = (id: string) => (field.endsWith('_ids') ? [id] : id);
        return kind
          ? [{ place: `body ${field}`, kind, request: (id: string) => ({ path, body: withField(baseBody, field, value(id)) }) }]
          : [];
      }),
      ...queryNames(operation).flatMap((name) => {
        const kind = kindOf(operation, name);
        return kind
          ? [{ place: `query ${name}`, kind, request: (id: string) => ({ path: appendQuery(path, `${name}=${id}`), body: {} }) }]
          : [];
      }),
    ];
  }

  it.each([0, 1])(
    'viewpoint %#: foreign ids in paths, bodies and queries are refused as unknown ids, change nothing and leak nothing',
    async (index) => {
      const { own, principal, others, governs } = viewpoints[index];
      const before = await settledDigest();
      const probe = async (operation: DocumentedOperation) => {
        for (const { place, kind, request } of placesOf(operation, own)) {
          const sources = others.filter(
            ({ relation }) =>
              relation === 'organization' ||
              !governs ||
              !(organizationKinds.has(kind) || organizationRoutes.has(operation.label)),
          );
          if (sources.length === 0) continue;
          const unknownRequest = request(randomUUID());
          const unknown = await send(operation, principal, unknownRequest.path, unknownRequest.body);
          for (const { fixture: foreign } of sources) {
            const sent = foreign.ids[kind];
            const foreignRequest = request(sent);
            const response = await send(operation, principal, foreignRequest.path, foreignRequest.body);
            const context = { viewpoint: own.label, route: operation.label, place, from: foreign.label };
            if (place.startsWith('query ') && response.status === 200) {
              // A filter naming a resource the caller cannot see matches nothing, as an unknown id does.
              expect({ ...context, data: response.body.data }).toEqual({ ...context, data: [] });
              expect({ ...context, status: unknown.status, data: unknown.body.data }).toEqual({
                ...context,
                status: 200,
                data: [],
              });
            } else if (place.endsWith('_ids') && response.status === 200) {
              // A bulk action answers per item (contract §2, bulk republish): the foreign item fails as an unknown one.
              const items = (answer: Response) =>
                answer.body.data.map((item: any) => ({ status: item.status, code: item.error?.code }));
              expect({ ...context, items: items(response) }).toEqual({ ...context, items: items(unknown) });
              expect(items(response)).toEqual([{ status: 'failed', code: expect.stringMatching(/_NOT_FOUND$/) }]);
            } else {
              expectRefusedAsUnknown(context, kind, response, unknown);
            }
            expectNoLeak(context, response, foreign, sent);
            tally[place.split(' ')[0] as 'path' | 'body' | 'query'] += 1;
            probedPlaces.add(`${operation.label} · ${place}`);
            probedKinds.add(kind);
          }
        }
      };
      await inParallel(operations, PARALLEL, probe);
      expect(await tableDigest(db, DIGEST)).toEqual(before);
    },
  );

  /** Secured reads whose path the acting workspace can fill with its own ids: what it may list and read. */
  function ownReads(own: WorkspaceFixture): Array<{ operation: DocumentedOperation; path: string }> {
    return operations
      .filter((operation) => operation.method === 'get')
      .map((operation) => ({ operation, path: concretePath(operation, ownPathValues(operation, own)) }));
  }

  /** Whether another workspace of the organization may see what this read shows (organization-level routes and kinds). */
  function organizationWide(operation: DocumentedOperation): boolean {
    return organizationRoutes.has(operation.label) || organizationKinds.has(operation.path.split('/')[2]);
  }

  it.each([0, 1])('viewpoint %#: lists, reads, counts, cursors and ETags show nothing of another tenant', async (index) => {
    const { own, principal, others, otherOrganizationMarkers, governs } = viewpoints[index];
    const before = await settledDigest();
    await inParallel(ownReads(own), PARALLEL, async ({ operation, path }) => {
      const limited = queryNames(operation).includes('limit') ? appendQuery(path, 'limit=200') : path;
      const response = await send(operation, principal, limited);
      const context = { viewpoint: own.label, route: operation.label };
      expect({ ...context, status: response.status < 500 }).toEqual({ ...context, status: true });
      if (response.status !== 200) return;
      tally.lists += 1;
      // No item of another tenant, by its own tenancy fields...
      for (const item of Array.isArray(response.body?.data) ? response.body.data : []) {
        if (item.organization_id !== undefined)
          expect({ ...context, organization: item.organization_id }).toEqual({ ...context, organization: own.organizationId });
        if (item.workspace_id !== undefined && !(governs && organizationWide(operation)))
          expect({ ...context, workspace: item.workspace_id }).toEqual({ ...context, workspace: own.workspaceId });
      }
      // ...nor anything another tenant's data carries: ids, names, external ids, balances.
      const text = response.text ?? '';
      for (const { relation, fixture } of others) {
        if (relation === 'workspace' && governs && organizationWide(operation)) continue;
        const values = [...fixture.markers, ...Object.values(fixture.ids), ...Object.values(fixture.extra)];
        const foreignValues = relation === 'organization' ? [...values, ...otherOrganizationMarkers] : values;
        const leaked = foreignValues.filter((value) => text.includes(value));
        expect({ ...context, from: fixture.label, leaked }).toEqual({ ...context, from: fixture.label, leaked: [] });
      }
      // Counts count only this workspace's rows (no other filter: they add up to the whole list).
      if (queryNames(operation).includes('counts') && response.body.pagination?.has_more === false) {
        const parameter = document.paths[operation.path].get.parameters.find((candidate: any) => candidate.name === 'counts');
        for (const field of parameter.schema?.enum ?? []) {
          const counted = await send(operation, principal, appendQuery(limited, `counts=${field}`));
          expect({ ...context, field, status: counted.status }).toEqual({ ...context, field, status: 200 });
          // An `all` bucket where one row falls in several buckets (a template serving two document types), else their sum.
          const buckets: Record<string, number> = counted.body.counts[field];
          const total = buckets.all ?? Object.values(buckets).reduce((sum, n) => sum + n, 0);
          expect({ ...context, field, total }).toEqual({ ...context, field, total: response.body.data.length });
          tally.counts += 1;
        }
      }
      // A cursor of this workspace's list, replayed by another tenant, is refused or shows nothing of this workspace.
      if (queryNames(operation).includes('cursor')) {
        const first = await send(operation, principal, appendQuery(path, 'limit=1'));
        const cursor: string | undefined = first.body?.pagination?.cursor ?? undefined;
        if (cursor) {
          const replay = appendQuery(path, `limit=1&cursor=${encodeURIComponent(cursor)}`);
          expect({ ...context, own: (await send(operation, principal, replay)).status }).toEqual({ ...context, own: 200 });
          for (const { relation, principal: stranger, fixture, governs: strangerGoverns } of others) {
            // A principal governing the organization may list this workspace's organization-level rows itself.
            if (relation === 'workspace' && strangerGoverns && organizationWide(operation)) continue;
            const answer = await send(operation, stranger, replay);
            const seen = { ...context, by: fixture.label, status: answer.status, code: answer.body?.error?.code };
            if (answer.status === 200) {
              const ownValues = [...own.markers, ...Object.values(own.ids), ...Object.values(own.extra)];
              expect({ ...seen, leaked: ownValues.filter((value) => answer.text.includes(value)) }).toEqual({
                ...seen,
                leaked: [],
              });
            } else {
              expect(seen).toEqual({
                ...context,
                by: fixture.label,
                status: expect.any(Number),
                code: expect.stringMatching(/^(INVALID_CURSOR|.+_NOT_FOUND|SANDBOX_PRINCIPAL_FORBIDDEN)$/),
              });
            }
            tally.cursors += 1;
          }
        }
      }
      // A resource's ETag gets another tenant nothing: 404 as for any id of another tenant, never 304.
      const etag = response.headers.etag;
      if (etag && operation.pathParams.length > 0) {
        for (const { principal: stranger, fixture } of others) {
          const answer = await send(operation, stranger, path, {}, { 'If-None-Match': etag });
          expect({ ...context, by: fixture.label, status: answer.status, etag: answer.headers.etag }).toEqual({
            ...context,
            by: fixture.label,
            status: 404,
            etag: undefined,
          });
          tally.etags += 1;
        }
      }
    });
    expect(await tableDigest(db, DIGEST)).toEqual(before);
  });

  it('refuses mass-assigned fields (ids, tenancy, version, balances, timestamps) on every write with 400, and stores nothing', async () => {
    const { own, principal, others } = viewpoints[0];
    const foreign = others.find((other) => other.relation === 'organization')!.fixture;
    const values: Record<string, unknown> = {
      id: foreign.ids.customers,
      object: 'customer',
      organization_id: foreign.organizationId,
      workspace_id: foreign.workspaceId,
      version: 99,
      created_at: '2020-01-01T00:00:00Z',
      updated_at: '2020-01-01T00:00:00Z',
    };
    const before = await settledDigest();
    const writes = operations.filter((operation) => ['post', 'patch', 'put'].includes(operation.method));
    await inParallel(writes, PARALLEL, async (operation) => {
      const declared = Object.keys(operation.bodySchema?.properties ?? {});
      const fields = MASS_FIELDS.filter((candidate) => !declared.includes(candidate));
      const path = concretePath(operation, ownPathValues(operation, own));
      // All at once: the whitelist names every undeclared field it refuses, so one request checks each of them.
      const mass = Object.fromEntries(fields.map((field) => [field, values[field] ?? '1000000.00']));
      const response = await send(operation, principal, path, { ...validBody(operation, own), ...mass });
      const refused = (response.body?.error?.errors ?? [])
        .filter((error: any) => error.code === 'UNKNOWN_PARAMETER')
        .map((error: any) => error.param);
      const context = { route: operation.label };
      expect({ ...context, status: response.status, refused: fields.filter((field) => refused.includes(field)) }).toEqual({
        ...context,
        status: 400,
        refused: fields,
      });
      tally.mass += fields.length;
    });
    expect(await tableDigest(db, DIGEST)).toEqual(before);
  });
});
