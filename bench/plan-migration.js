// Plan migration at scale (quality bar P14): an IMMEDIATE migration of BENCH_MIGRATION_SMALL
// (10,000) and BENCH_MIGRATION_LARGE (100,000) subscriptions seeded by SQL, each plan its own,
// measured in alternating rounds (v1 → v2, v2 → v1, …): time from the migrate request to the
// migration completed (outcomes built in the request, moved by the job queue in batches of 500),
// and subscriptions left without an outcome (must be 0). Linear: LARGE ≤ 12 × SMALL for 10×.
const { randomUUID } = require('node:crypto');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const SMALL = Number(process.env.BENCH_MIGRATION_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_MIGRATION_LARGE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_MIGRATION_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 3962);

const log = (message) => console.log(`[plan-migration ${new Date().toISOString().slice(11, 19)}] ${message}`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function client(base, auth) {
  const call = async (method, path, body) => {
    const headers = { authorization: auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = randomUUID();
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body = {}) => call('POST', path, body),
    patch: (path, body) => call('PATCH', path, body),
  };
}

/** A plan with one membership, published twice (versions 1 and 2). */
async function twoVersionPlan(api, productId, name) {
  const plan = await api.post('/v1/plans', { name });
  const draft = (
    await api.post(`/v1/plans/${plan.id}/products`, { product_id: productId, included_quantity: '100', refresh_unit: 'month' })
  ).draft_version;
  const publish = (stagedVersionId) =>
    api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'plan',
      subject_id: plan.id,
      staged_version_id: stagedVersionId,
    });
  await publish(draft.id);
  const next = (await api.patch(`/v1/plans/${plan.id}/products/${productId}`, { included_quantity: '200' })).draft_version;
  await publish(next.id);
  return plan.id;
}

/** `count` ACTIVE, pinned subscriptions on version 1 of the plan, in batches of 50,000. */
async function seedSubscriptions(sql, tenant, customerId, planId, count) {
  const { rows } = await sql.query(`SELECT id FROM plan_versions WHERE plan_id = $1 AND version = 1`, [planId]);
  for (let done = 0; done < count; done += 50_000) {
    await sql.query(
      `INSERT INTO subscriptions (organization_id, workspace_id, id, customer_id, plan_id, plan_version_id, status, billing_cadence,
         current_period_start, current_period_end, created_at, updated_at)
       SELECT $1, $2, gen_random_uuid(), $3, $4, $5, 'active', 'month', now(), now() + interval '1 month', now(), now()
         FROM generate_series(1, $6::int)`,
      [tenant.organization_id, tenant.workspace_id, customerId, planId, rows[0].id, Math.min(50_000, count - done)],
    );
  }
  await sql.query('ANALYZE subscriptions');
}

/** Waits until the outbox relay has delivered the events of earlier rounds (their work is not this round's). */
async function outboxDrained(sql) {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL`);
    if (rows[0].n === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** One migration to `target`, timed from the request to its completion; checked for lost subscriptions. */
async function migrate(api, sql, planId, target, expected) {
  await outboxDrained(sql);
  const started = performance.now();
  const result = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: target });
  // Polled in SQL: the API's counts read every outcome, which would load the server being measured.
  for (;;) {
    const { rows } = await sql.query(`SELECT status FROM plan_migrations WHERE id = $1`, [result.migration_id]);
    if (rows[0].status === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const migration = await api.get(`/v1/migrations/${result.migration_id}`);
  const { rows } = await sql.query(
    `SELECT count(*)::int AS lost FROM subscriptions s
      WHERE s.plan_id = $1 AND s.status = 'active'
        AND NOT EXISTS (SELECT 1 FROM plan_migration_outcomes o WHERE o.organization_id = s.organization_id AND o.workspace_id = s.workspace_id
                          AND o.migration_id = $2 AND o.subscription_id = s.id AND o.status = 'moved')`,
    [planId, result.migration_id],
  );
  const ok =
    result.affected_subscriptions === expected && migration.counts.moved === expected && migration.counts.total === expected;
  if (!ok)
    log(
      `unexpected counts: affected ${result.affected_subscriptions}, ${JSON.stringify(migration.counts)} (expected ${expected})`,
    );
  return { seconds, lost: rows[0].lost + (ok ? 0 : Math.abs(expected - migration.counts.moved)) };
}

async function main() {
  const database = await scratchDatabase('plan_migration');
  const server = await startServer({ databaseUrl: database.url, port: PORT });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  try {
    // The first-start banner may follow readiness by a moment.
    for (let tries = 0; !/sk_live_/.test(server.output()) && tries < 200; tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const api = client(server.base, `Bearer ${rootKeyFrom(server.output())}`);
    const { rows: tenants } = await sql.query(
      `SELECT organization_id, id AS workspace_id FROM workspaces WHERE mode = 'live' LIMIT 1`,
    );
    const tenant = tenants[0];
    await api.post('/v1/costs', { key: 'bench_seat', amount: '10.00' });
    const product = await api.post('/v1/products', { name: 'bench seats', price_expression: 'bench_seat * 2' });
    await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'product',
      subject_id: product.id,
      staged_version_id: product.draft_version.id,
    });
    const customer = await api.post('/v1/customers', { name: 'Bench subscriber', currency: 'EUR' });
    const plans = {
      small: await twoVersionPlan(api, product.id, 'bench small'),
      large: await twoVersionPlan(api, product.id, 'bench large'),
    };
    log(`seeding ${SMALL} + ${LARGE} subscriptions`);
    await seedSubscriptions(sql, tenant, customer.id, plans.small, SMALL);
    await seedSubscriptions(sql, tenant, customer.id, plans.large, LARGE);

    const times = { small: [], large: [] };
    let lost = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const target = round % 2 === 0 ? 2 : 1;
      for (const [size, count] of [
        ['small', SMALL],
        ['large', LARGE],
      ]) {
        const run = await migrate(api, sql, plans[size], target, count);
        times[size].push(run.seconds);
        lost += run.lost;
        log(
          `round ${round + 1}: ${count} subscriptions → v${target} in ${run.seconds.toFixed(2)} s (${Math.round(count / run.seconds)}/s), lost ${run.lost}`,
        );
      }
    }
    const small = median(times.small);
    const large = median(times.large);
    const ratio = large / small;
    const scale = LARGE / SMALL;
    report('plan-migration', [
      { figure: `P14 migrate ${SMALL} subscriptions`, value: small, unit: 's', pass: undefined },
      {
        figure: `P14 migrate ${LARGE} subscriptions`,
        value: large,
        unit: 's',
        reference: small,
        ratio,
        bar: `≤ ${(1.2 * scale).toFixed(0)}× for ${scale}×`,
        pass: ratio <= 1.2 * scale,
        score: (1.2 * scale) / ratio,
      },
      { figure: 'P14 throughput (large)', value: Math.round(LARGE / large), unit: 'subscriptions/s', pass: undefined },
      { figure: 'P14 subscriptions without an outcome', value: lost, bar: '0', pass: lost === 0 },
    ]);
    if (ratio > 1.2 * scale || lost !== 0) process.exitCode = 1;
  } finally {
    await sql.end();
    await server.stop();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
