// Catalog I at scale (quality bars P12, P13 for costs, and the formula engine):
// 1. An ORG cost change cascading to BENCH_CASCADE_PRODUCTS (1,000) consuming products: time to
//    complete, products per second, duplicate versions (must be 0), against publishing the same
//    products one by one over HTTP in the same run.
// 2. Cost list and product cost view latency with 100,000 costs in the workspace against 1,000
//    (first and deep page), and the plans PostgreSQL chooses for them (no sequential scan).
// 3. Formula evaluations per second for a 20-term formula.
const { randomBytes, randomUUID } = require('node:crypto');
const { join } = require('node:path');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const formula = require(join(__dirname, '../dist/apps/api/libs/catalog/src/domain/formula'));

const PRODUCTS = Number(process.env.BENCH_CASCADE_PRODUCTS ?? 1_000);
const SMALL = 1_000;
const LARGE = Number(process.env.BENCH_SCALE_COSTS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const PARALLEL = 16;
const PORT = Number(process.env.BENCH_PORT ?? 3961);

const log = (message) => console.log(`[catalog ${new Date().toISOString().slice(11, 19)}] ${message}`);

function client(base, auth, workspace) {
  const call = async (method, path, body) => {
    const headers = { authorization: auth };
    if (workspace) headers['x-workspace-id'] = workspace;
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
  return {
    get: (path) => call('GET', path),
    post: (path, body = {}) => call('POST', path, body),
    patch: (path, body) => call('PATCH', path, body),
    in: (other) => client(base, auth, other),
  };
}

async function inParallel(count, parallel, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Cascade against publishing the same products one by one over HTTP. */
async function cascade(api, sql) {
  const fee = await api.post('/v1/costs', { key: 'bench_fee', amount: '10.00' });
  const products = [];
  await inParallel(PRODUCTS, PARALLEL, async (i) => {
    products[i] = (await api.post('/v1/products', { name: `cascade ${i}`, price_expression: `bench_fee * ${1 + (i % 7)}` })).id;
  });
  const publish = async (id) => {
    const product = await api.get(`/v1/products/${id}`);
    await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'product',
      subject_id: id,
      staged_version_id: product.draft_version.id,
    });
  };
  await inParallel(PRODUCTS, PARALLEL, (i) => publish(products[i]));
  // The reference: the same products, each with a staged change, published one by one over HTTP.
  await inParallel(PRODUCTS, PARALLEL, (i) =>
    api.patch(`/v1/products/${products[i]}`, { price_expression: `bench_fee * ${2 + (i % 7)}` }),
  );
  const httpMs = await timed(() => inParallel(PRODUCTS, PARALLEL, (i) => publish(products[i])));
  log(`published ${PRODUCTS} products over HTTP in ${(httpMs / 1000).toFixed(2)} s`);

  let saved;
  const cascadeMs = await timed(async () => {
    saved = await api.patch(`/v1/costs/${fee.id}`, { amount: '12.00' });
    for (;;) {
      const run = await api.get(`/v1/cascade_runs/${saved.cascade_run_id}`);
      if (run.status === 'completed') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  const run = await api.get(`/v1/cascade_runs/${saved.cascade_run_id}`);
  const { rows: duplicates } = await sql.query(
    `SELECT product_id FROM product_versions WHERE cascade_source->>'version_id' = $1 GROUP BY product_id HAVING count(*) > 1`,
    [run.source.version_id],
  );
  log(`cascade: ${JSON.stringify(run.counts)} in ${(cascadeMs / 1000).toFixed(2)} s, ${duplicates.length} duplicate versions`);
  return {
    httpRate: PRODUCTS / (httpMs / 1000),
    cascadeRate: PRODUCTS / (cascadeMs / 1000),
    cascadeMs,
    run,
    duplicates: duplicates.length,
  };
}

/** Seeds ORG costs by SQL (each with its first revision) until the workspace holds `total` of them. */
async function seedCosts(sql, tenant, total) {
  log(`seeding ${total} costs in workspace ${tenant.workspace_id}`);
  const { rows } = await sql.query(`SELECT count(*)::int AS n FROM costs WHERE workspace_id = $1`, [tenant.workspace_id]);
  const missing = total - rows[0].n;
  for (let done = 0; done < missing; done += 10_000) {
    const batch = Math.min(10_000, missing - done);
    await sql.query(
      `WITH made AS (
         INSERT INTO costs (organization_id, workspace_id, id, scope, key, state, current_revision_no, created_at, updated_at)
         SELECT $1, $2, gen_random_uuid(), 'ORG', 'seed_' || $3 || '_' || g, 'active', 1, now() - (g || ' seconds')::interval, now()
           FROM generate_series(1, $4) g RETURNING organization_id, workspace_id, id, created_at)
       INSERT INTO cost_revisions (organization_id, workspace_id, cost_id, revision_no, id, kind, amount, effective_at, created_by, created_at)
       SELECT organization_id, workspace_id, id, 1, gen_random_uuid(), 'value', 1.5, created_at, '{"type":"system","id":null}', created_at FROM made`,
      [tenant.organization_id, tenant.workspace_id, `${done}_${randomUUID().slice(0, 8)}`, batch],
    );
  }
  await sql.query('ANALYZE costs; ANALYZE cost_revisions');
}

/** The URL of a first page and of the page 10 deep. */
async function pages(api, path) {
  const first = `${path}${path.includes('?') ? '&' : '?'}limit=50`;
  let deep = first;
  let page = await api.get(first);
  for (let i = 0; i < 9 && page.pagination.cursor; i += 1) {
    deep = `${first}&cursor=${page.pagination.cursor}`;
    page = await api.get(deep);
  }
  return { first, deep };
}

/**
 * Median latency of each URL, the small and the large workspace measured in alternating rounds
 * so that the machine's drift (other processes, checkpoints) falls on both alike.
 */
async function alternating(targets) {
  const samples = targets.map(() => []);
  for (let round = 0; round < 3; round += 1) {
    for (const [index, { api, url }] of targets.entries()) {
      for (let i = 0; i < SAMPLES / 3; i += 1) samples[index].push(await timed(() => api.get(url)));
    }
  }
  return samples.map(median);
}

async function listPlans(sql, tenant) {
  const { rows } = await sql.query(
    `EXPLAIN (FORMAT JSON) SELECT c.id FROM costs c WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.state = 'active'
       AND ('ORG'::text IS NULL OR c.scope = 'ORG') ORDER BY c.created_at DESC, c.id DESC LIMIT 51`,
    [tenant.organization_id, tenant.workspace_id],
  );
  const nodes = [];
  const walk = (node) => {
    nodes.push(node['Node Type'] + (node['Index Name'] ? ` on ${node['Index Name']}` : ''));
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(rows[0]['QUERY PLAN'][0].Plan);
  return nodes;
}

function formulaThroughput() {
  const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
  const ast = formula.parseFormula(
    keys.map((key, i) => (i % 3 === 0 ? `${key} * 1.05` : i % 3 === 1 ? `${key} / 3` : key)).join(' + '),
  );
  const values = new Map(keys.map((key, i) => [key, `${i + 1}.25`]));
  for (let i = 0; i < 2_000; i += 1) formula.evaluateWithValues(ast, values);
  const count = 50_000;
  const ms = timedSync(() => {
    for (let i = 0; i < count; i += 1) formula.evaluateWithValues(ast, values);
  });
  return count / (ms / 1000);
}

function timedSync(fn) {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

async function main() {
  const database = await scratchDatabase('catalog');
  const server = await startServer({ databaseUrl: database.url, port: PORT });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  try {
    const api = client(server.base, `Bearer ${rootKeyFrom(server.output())}`);
    const { rows: tenants } = await sql.query(
      `SELECT organization_id, id AS workspace_id FROM workspaces WHERE mode = 'live' LIMIT 1`,
    );
    const tenant = tenants[0];

    const evaluations = formulaThroughput();
    log(`formula: ${evaluations.toFixed(0)} evaluations/s of a 20-term formula`);

    const cascaded = await cascade(api, sql);

    // Two workspaces of one database: SMALL costs in one, LARGE in the other, each with a product of 60 costs.
    const small = (await api.post('/v1/workspaces', { name: 'bench small', slug: 'bench-small', mode: 'live' })).id;
    const apis = { small: api.in(small), large: api };
    const views = {};
    for (const [size, scoped] of Object.entries(apis)) {
      views[size] = (await scoped.post('/v1/products', { name: 'cost view' })).id;
      await inParallel(60, 8, (i) => scoped.post(`/v1/products/${views[size]}/costs`, { key: `own_${i}`, amount: '1.00' }));
    }
    await seedCosts(sql, { organization_id: tenant.organization_id, workspace_id: small }, SMALL);
    await seedCosts(sql, tenant, LARGE);
    const lists = {
      small: await pages(apis.small, '/v1/costs?scope=ORG'),
      large: await pages(apis.large, '/v1/costs?scope=ORG'),
    };
    const [smallFirst, largeFirst, smallDeep, largeDeep, smallView, largeView] = await alternating([
      { api: apis.small, url: lists.small.first },
      { api: apis.large, url: lists.large.first },
      { api: apis.small, url: lists.small.deep },
      { api: apis.large, url: lists.large.deep },
      { api: apis.small, url: `/v1/products/${views.small}/costs?limit=50` },
      { api: apis.large, url: `/v1/products/${views.large}/costs?limit=50` },
    ]);
    const smallList = { first: smallFirst, deep: smallDeep };
    const largeList = { first: largeFirst, deep: largeDeep };
    const plan = await listPlans(sql, tenant);
    log(`cost list plan at ${LARGE}: ${plan.join(' → ')}`);
    const seqScan = plan.some((node) => node.startsWith('Seq Scan'));

    const latencyRow = (figure, small, large) => ({
      figure,
      value: large,
      unit: 'ms',
      reference: small,
      ratio: large / small,
      bar: '≤ 1.5×',
      pass: large / small <= 1.5,
    });
    report('catalog', [
      {
        figure: `cascade: ORG cost change republishing ${PRODUCTS} products (products/s) vs publishing them one by one over HTTP`,
        value: cascaded.cascadeRate,
        unit: 'products/s',
        reference: cascaded.httpRate,
        ratio: cascaded.cascadeRate / cascaded.httpRate,
        bar: '≥ 1.0×',
        pass: cascaded.cascadeRate / cascaded.httpRate >= 1.0,
      },
      { figure: 'cascade: time to complete', value: cascaded.cascadeMs / 1000, unit: 's' },
      {
        figure: 'cascade: products republished exactly once (duplicates, errored)',
        value: cascaded.duplicates + cascaded.run.counts.errored,
        bar: '0',
        pass: cascaded.duplicates === 0 && cascaded.run.counts.republished === PRODUCTS,
      },
      latencyRow(`GET /v1/costs first page at ${LARGE} costs vs ${SMALL}`, smallList.first, largeList.first),
      latencyRow(`GET /v1/costs page 10 at ${LARGE} costs vs ${SMALL}`, smallList.deep, largeList.deep),
      latencyRow(`GET /v1/products/{id}/costs at ${LARGE} costs vs ${SMALL}`, smallView, largeView),
      { figure: `cost list plan at ${LARGE} costs: sequential scans`, value: seqScan ? 1 : 0, bar: '0', pass: !seqScan },
      { figure: 'formula: evaluations/s of a 20-term formula', value: evaluations, unit: 'eval/s' },
    ]);
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
