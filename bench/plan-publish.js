// Quality bar P13, plan publish: publishing a plan with 50 memberships against a plan with 1
// (≤ 3×). Each publish goes through POST /v1/changes after a staged edit (the cadence flips), so
// every one resolves every membership to its product's live version and writes a new version.
const { randomBytes } = require('node:crypto');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const MEMBERS = 50;
const PUBLISHES = Number(process.env.BENCH_PLAN_PUBLISHES ?? 60);
const PORT = Number(process.env.BENCH_PORT ?? 3971);

const log = (message) => console.log(`[plan-publish ${new Date().toISOString().slice(11, 19)}] ${message}`);

function client(base, auth) {
  return async (method, path, body) => {
    const headers = { authorization: auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = randomBytes(12).toString('hex');
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const database = await scratchDatabase('plan-publish');
  const server = await startServer({ databaseUrl: database.url, port: PORT });
  try {
    const call = client(server.base, `Bearer ${rootKeyFrom(server.output())}`);
    await call('POST', '/v1/costs', { key: 'bench_seat', amount: '10' });
    const products = [];
    for (let i = 0; i < MEMBERS; i += 1) {
      const product = await call('POST', '/v1/products', { name: `member ${i}`, price_expression: `bench_seat * ${i + 1}` });
      await call('POST', '/v1/changes', {
        operation: 'catalog.publish_version',
        subject_kind: 'product',
        subject_id: product.id,
        staged_version_id: product.draft_version.id,
      });
      products.push(product.id);
    }
    const plans = {};
    for (const [size, members] of [
      ['one', products.slice(0, 1)],
      ['fifty', products],
    ]) {
      const plan = await call('POST', '/v1/plans', { name: `publish ${size}` });
      for (const productId of members) {
        await call('POST', `/v1/plans/${plan.id}/products`, {
          product_id: productId,
          included_quantity: '100',
          refresh_unit: 'month',
        });
      }
      plans[size] = plan.id;
    }
    const publish = async (planId, cadence) => {
      await call('PATCH', `/v1/plans/${planId}`, { price_cadence_unit: cadence });
      const draft = await call('GET', `/v1/plans/${planId}/draft`);
      const started = performance.now();
      await call('POST', '/v1/changes', {
        operation: 'catalog.publish_version',
        subject_kind: 'plan',
        subject_id: planId,
        staged_version_id: draft.id,
      });
      return performance.now() - started;
    };
    // Alternating, so that the machine's drift falls on both alike.
    const times = { one: [], fifty: [] };
    for (let i = 0; i < PUBLISHES; i += 1) {
      const cadence = i % 2 === 0 ? 'year' : 'month';
      times.one.push(await publish(plans.one, cadence));
      times.fifty.push(await publish(plans.fifty, cadence));
    }
    const one = median(times.one);
    const fifty = median(times.fifty);
    log(`publish with 1 membership ${one.toFixed(1)} ms, with ${MEMBERS} ${fifty.toFixed(1)} ms (median of ${PUBLISHES})`);
    report('plan-publish', [
      {
        figure: `publish a plan with ${MEMBERS} memberships vs 1 (POST /v1/changes, median of ${PUBLISHES})`,
        value: fifty,
        unit: 'ms',
        reference: one,
        ratio: fifty / one,
        bar: '≤ 3×',
        pass: fifty / one <= 3,
      },
    ]);
  } finally {
    await server.stop();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
