import { Client } from 'pg';
import { OutboxRelay } from '@app/shared-kernel';
import { createKey, createTenant, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { WalletClient } from '../support/wallet-helpers';
import { ok, walletHotPathRound } from '../support/hot-path-round';
import { CatalogClient, drainCascades } from '../support/catalog-helpers';
import { SubscriptionClient } from '../support/subscription-helpers';
import { eventually } from '../support/auth-helpers';
import { WebhookReceiver } from '../support/webhook-receiver';
import { assertCitusCoordinator } from './citus-database';

/**
 * Citus reports every statement it splits into more than one task (a multi-shard plan) as a NOTICE
 * on the connection that sent it; a single-shard router plan (one task) says nothing. EXPLAIN is
 * not used: a Citus EXPLAIN asks the worker to explain the task, which fails (and aborts the
 * application's transaction) on statements nested in plpgsql functions.
 */
const MULTI_TASK_NOTICE = 'multi-task query about to be executed';

/**
 * The hot statements on tenant tables, as the app sends them: each must route to one shard group
 * (a Citus plan of one task), since it names its organization.
 */
const HOT_PATH: Array<[string, RegExp]> = [
  ['idempotency claim', /idempotency_claim\(/],
  ['idempotency record', /^INSERT INTO idempotency_records/],
  ['wallet lock and read', /FROM wallet_lock\(/],
  ['wallet write (balances, ledger lines, lots, audit row)', /^WITH w0 AS \(UPDATE wallets SET cash_balance/],
  ['wallet read', /FROM wallets w WHERE w\.id = \$3/],
  ['wallet visibility check', /^SELECT 1 FROM wallets WHERE/],
  [
    'hold lock',
    /FROM wallet_holds WHERE organization_id = \$1 AND workspace_id = \$2 AND wallet_id = \$3 AND id = \$4 FOR UPDATE/,
  ],
  ['ledger page', /FROM wallet_transactions/],
  ['plan list', /FROM plans p WHERE p\.organization_id = \$1/],
  ['outbox claim', /FROM outbox_events WHERE organization_id = \$1 AND id = \$2 AND dispatched_at IS NULL/],
  ['plan publish (the plan version written)', /UPDATE plan_versions SET price_cadence_unit/],
  ['cascade task (its outcome recorded)', /^UPDATE cascade_tasks SET status = \$6/],
  [
    'plan migration batch (moves and outcomes in one write)',
    /UPDATE plan_migration_outcomes o SET status = CASE WHEN u\.reason IS NULL/,
  ],
  ['event write (the workspace sequence and the event rows)', /INSERT INTO event_sequences/],
  ['webhook deliveries queued with the event', /INSERT INTO webhook_deliveries/],
  ['webhook delivery claimed, with its endpoint and payload', /WITH claimed AS \(\s*UPDATE webhook_deliveries SET lease_until/],
  ['webhook delivery attempt recorded (outcome, log row, streak)', /INSERT INTO webhook_delivery_attempts/],
];

/**
 * Statements that still read every shard, each for a reason of its own; anything else that does
 * fails the test.
 * - A credential is found by its hash before its organization is known (the bearer token does not
 *   name it): one index probe on every shard, no lock.
 * - The outbox relay finds the due events of every organization without a lock, then claims each
 *   one by its key (the claim is on HOT_PATH).
 */
const KNOWN_FAN_OUT: RegExp[] = [
  /FROM api_keys WHERE secret_hash = \$1/,
  /WHERE s\.token_hash = \$1/,
  /FROM outbox_events WHERE dispatched_at IS NULL AND next_attempt_at <= \$1/,
];

/** Scheduled sweeps, not request paths. */
const BACKGROUND = [
  /FROM promotional_lots\s+WHERE remaining > 0 AND expires_at/,
  /DELETE FROM idempotency_records/,
  /FROM webhook_deliveries WHERE status = 'pending' AND \(\(lease_until IS NOT NULL/,
];

/**
 * The test helpers' own reads that find the pending cascade work and the migration's due outcomes
 * of every organization (drainCascades, SubscriptionClient.runMigration): not the application's.
 */
const TEST_HELPERS = [
  /FROM cascade_runs WHERE status = 'pending' AND effective_at <= \$1/,
  /FROM cascade_tasks WHERE status = 'pending' ORDER BY subject_kind DESC/,
  /FROM plan_migration_outcomes WHERE migration_id = \$1 AND status = 'pending'/,
];

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
/** The statement a connection is running (pg keeps it while the server answers, notices included). */
const running = (client: Client) => oneLine((client as unknown as { activeQuery?: { text?: string } }).activeQuery?.text ?? '');

/**
 * Issue 20 §2: on a Citus coordinator every hot statement on a tenant table names its organization
 * and runs as a single-shard router plan (one task). Every statement the app sends over the hot
 * paths is recorded, and each one Citus splits into several tasks (nested plpgsql statements
 * included, reported under their call): authentication (API key and session), idempotency, wallet
 * lock/read/write, a transfer, holds, the ledger and plan lists and the outbox drain; each flow runs
 * 7 times so prepared statements reach their generic plans.
 */
describe('Single-shard plans of the hot paths on Citus', () => {
  const RUNS = 7;
  let t: TestApp;
  let tenant: TestTenant;
  let hot: string;
  let other: string;
  let worker: { id: string; secret: string };
  let receiver: WebhookReceiver;
  const sent: string[] = [];
  const multiTask: string[] = [];
  let capturing = false;
  const emit = Client.prototype.emit;
  const query = Client.prototype.query;

  beforeAll(async () => {
    await assertCitusCoordinator(process.env.DATABASE_URL!);
    Client.prototype.emit = function (this: Client, event: string | symbol, ...args: unknown[]) {
      if (capturing && event === 'notice' && (args[0] as { message?: string }).message === MULTI_TASK_NOTICE) {
        multiTask.push(running(this));
      }
      return emit.call(this, event, ...args);
    } as typeof emit;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (capturing && text) sent.push(oneLine(text));
      return (query as (...params: unknown[]) => unknown).apply(this, args);
    } as typeof query;

    t = await createTestApp({
      beforeStart: async (database) => {
        const admin = new Client({ connectionString: database.url });
        await admin.connect();
        try {
          await admin.query(`ALTER DATABASE "${database.name}" SET citus.multi_task_query_log_level = 'notice'`);
        } finally {
          await admin.end();
        }
      },
    });
    tenant = await createTenant(t, { withOwner: true });
    const root = new WalletClient(t, tenant.auth);
    hot = (await root.customerWithWallet('USD', 'Hot customer')).wallet.id;
    other = (await root.customerWithWallet('USD', 'Other customer')).wallet.id;
    await root.ok(hot, 'credit', { amount: '1000.00', source: 'PAYMENT' });
    // Every event of the organization goes to a local receiver: the event writes and the deliveries are hot paths too.
    receiver = await new WebhookReceiver().start();
    await ok(root.post('/v1/webhook_endpoints', { url: receiver.url('/ok-router'), enabled_events: ['*'] }));
    worker = await createKey(t, tenant.auth, {
      name: 'router worker',
      scopes: ['wallets:read', 'wallets:write', 'customers:read', 'customers:write', 'plans:read', 'plans:write'],
    });
  });

  afterAll(async () => {
    Client.prototype.emit = emit;
    Client.prototype.query = query;
    await t?.app.close();
    await receiver?.close();
  });

  /**
   * The catalog's hot paths, once: a plan published, a subscriber on it, an ORG cost change that
   * cascades (the product's task, then the plan's), and an immediate migration of the subscriber to
   * the plan's newest version (its batch run).
   */
  async function catalogRound(catalog: SubscriptionClient): Promise<void> {
    const fee = await catalog.orgCost('router_fee', { amount: '1.00' });
    const product = await catalog.liveProduct('router_fee * 2');
    const planId = await catalog.plan([product.id]);
    await catalog.publishPlan(planId);
    const customer = await catalog.customer();
    await catalog.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
    // The ORG cost's new value cascades: the product's task republishes it, whose go-live queues the plan's task.
    await ok(catalog.patch(`/v1/costs/${fee.id}`, { amount: '2.00' }));
    await drainCascades(t);
    await catalog.republishPlan(planId, product.id, '200');
    const target = (await catalog.get(`/v1/plans/${planId}`)).body.live_version.version;
    expect(target).toBeGreaterThan(1);
    const migration = await ok(catalog.post(`/v1/plans/${planId}/migrate`, { mode: 'immediate', target_version: target }));
    await catalog.runMigration(migration.migration_id);
    expect((await catalog.migration(migration.migration_id)).status).toBe('completed');
  }

  it('answers readiness with the engine and its workers (contract §6)', async () => {
    const response = await t.http.get('/health/ready').expect(200);
    expect(response.body).toEqual({
      status: 'ok',
      checks: { database: 'up', migrations: 'applied' },
      database: { engine: 'citus', workers: 2 },
    });
  });

  it('routes every hot statement to one shard group', async () => {
    const session = new WalletClient(t, await signIn(t, tenant.owner!.email, tenant.owner!.password));
    const api = new WalletClient(t, `Bearer ${worker.secret}`);
    capturing = true;
    for (let run = 0; run < RUNS; run += 1) {
      await walletHotPathRound(api, session, { hot, other }, `router-${run}`);
      await ok(api.get(`/v1/plans?limit=10`));
      await ok(api.post('/v1/customers', { name: `Router customer ${run}`, currency: 'USD' })); // an outbox event
    }
    await catalogRound(new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant));
    await t.app.get(OutboxRelay).wake();
    // The last customer's event delivered: deliveries ran while the statements were recorded.
    await eventually(
      async () =>
        receiver.on('/ok-router').some((request) => request.body.includes(`Router customer ${RUNS - 1}`)) ? true : undefined,
      30_000,
    );
    capturing = false;

    // Each hot statement was sent (the test cannot pass by sending nothing) …
    const seen = HOT_PATH.filter(([, pattern]) => sent.some((text) => pattern.test(text))).map(([name]) => name);
    expect(seen).toEqual(HOT_PATH.map(([name]) => name));
    // … Citus reports multi-task plans at all (the known fan-outs ran) …
    expect(KNOWN_FAN_OUT.filter((pattern) => multiTask.some((text) => pattern.test(text))).length).toBeGreaterThan(0);
    // … and no other statement was split over several shards.
    const fannedOut = multiTask.filter(
      (text) => ![...KNOWN_FAN_OUT, ...BACKGROUND, ...TEST_HELPERS].some((pattern) => pattern.test(text)),
    );
    expect([...new Set(fannedOut.map((text) => text.slice(0, 200)))]).toEqual([]);
  });
});
