// P13 for the customer-verification list: GET /v1/customer_verifications, unfiltered (first page
// and a page 5,000 rows deep) and with each filter, stays as fast with BENCH_VERIFICATIONS
// (1,000,000) verifications in the workspace as with 10,000. Customers come through the API;
// verifications are seeded with SQL (statuses, types and customers spread as a live workspace's
// would be), then ANALYZEd. Each size has a database and a server of its own, measured alternately
// (median of BENCH_ROUNDS). EXPLAIN of the list's SQL for every filter must show no sequential scan.
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_VERIFICATIONS ?? 1_000_000);
const CUSTOMERS = 100;
const DURATION_S = Number(process.env.BENCH_LIST_DURATION_S ?? 5);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);
const CONNECTIONS = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DEEP_ROWS = 5_000;
const BATCH = 100_000;
const PORT = Number(process.env.BENCH_PORT ?? 3961);
const BASE_TIME = Date.parse('2026-01-01T00:00:00Z');

const log = (message) => console.log(`[verifications ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function post(base, auth, path, body) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomBytes(12).toString('hex') },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function get(base, auth, path) {
  const response = await fetch(`${base}${path}`, { headers: { authorization: auth } });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Rows [from, to) of the workspace's verifications: one a second, customers round-robin, statuses and types hashed. */
async function seed(sql, tenant, customerIds, from, to) {
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH);
    await sql.query(
      `INSERT INTO customer_verifications (organization_id, workspace_id, id, customer_id, verification_type, status, provider,
         provider_reference, provider_result, created_at, updated_at, completed_at)
       SELECT $1, $2, gen_random_uuid(), ($3::uuid[])[1 + g % $4], t.type, s.status, 'seeded', 'ref_' || g,
              json_build_object('reference', 'ref_' || g), $5::timestamptz + g * interval '1 second',
              $5::timestamptz + g * interval '1 second',
              CASE WHEN s.status IN ('verified', 'failed', 'expired') THEN $5::timestamptz + g * interval '1 second' END
         FROM generate_series($6::int, $7::int - 1) g
        CROSS JOIN LATERAL (SELECT abs(hashint4(g)) % 100 AS h, abs(hashint4(g + 7777777)) % 5 AS k) r
        CROSS JOIN LATERAL (SELECT CASE WHEN r.h < 40 THEN 'pending' WHEN r.h < 80 THEN 'verified' WHEN r.h < 90 THEN 'failed'
                                        WHEN r.h < 95 THEN 'expired' WHEN r.h < 98 THEN 'manual' ELSE 'maintenance' END AS status) s
        CROSS JOIN LATERAL (SELECT (ARRAY['kyc', 'kyb', 'age', 'business_entity', 'vat'])[1 + r.k] AS type) t`,
      [tenant.organizationId, tenant.workspaceId, customerIds, customerIds.length, new Date(BASE_TIME), start, end],
    );
  }
  await sql.query('ANALYZE customer_verifications');
}

const at = (second) => new Date(BASE_TIME + second * 1000).toISOString();

/** The queries measured, for a table of `total` rows: each a list URL and the filters the app's SQL gets. */
function queries(total, customerIds) {
  const window = { after: at(Math.floor(total * 0.5)), before: at(Math.floor(total * 0.75)) };
  return [
    { name: 'no filter', query: '', filters: {} },
    { name: 'no filter, 5,000 rows deep', query: '', filters: {}, deep: true },
    { name: 'customer_id', query: `customer_id=${customerIds[7]}`, filters: { customer_id: customerIds[7] } },
    { name: 'status=failed', query: 'status=failed', filters: { status: 'failed' } },
    { name: 'status=maintenance (2 %)', query: 'status=maintenance', filters: { status: 'maintenance' } },
    { name: 'verification_type=vat', query: 'verification_type=vat', filters: { verification_type: 'vat' } },
    {
      name: 'occurred_after + occurred_before',
      query: `occurred_after=${window.after}&occurred_before=${window.before}`,
      filters: { occurred_after: window.after, occurred_before: window.before },
    },
    {
      name: 'customer_id + status=verified',
      query: `customer_id=${customerIds[3]}&status=verified`,
      filters: { customer_id: customerIds[3], status: 'verified' },
    },
  ];
}

/** The SQL ListVerificationsHandler runs for these filters (only the filters given reach it). */
function listSql(tenant, filters, after, limit) {
  const values = [tenant.organizationId, tenant.workspaceId];
  const conditions = ['organization_id = $1', 'workspace_id = $2'];
  const where = (condition, value) => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (filters.customer_id) where((p) => `customer_id = ${p}::uuid`, filters.customer_id);
  if (filters.status) where((p) => `status = ${p}`, filters.status);
  if (filters.verification_type) where((p) => `verification_type = ${p}`, filters.verification_type);
  if (filters.occurred_after) where((p) => `created_at >= ${p}::timestamptz`, filters.occurred_after);
  if (filters.occurred_before) where((p) => `created_at < ${p}::timestamptz`, filters.occurred_before);
  if (after) {
    values.push(after[0], after[1]);
    conditions.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(limit + 1);
  return {
    text: `SELECT id, customer_id, status, verification_type, created_at FROM customer_verifications
            WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
    values,
  };
}

/** The cursor of the page `DEEP_ROWS` rows in, walked with the largest pages. */
async function deepCursor(base, auth, query) {
  let cursor;
  for (let seen = 0; seen < DEEP_ROWS; seen += 200) {
    const page = await get(
      base,
      auth,
      `/v1/customer_verifications?limit=200${query ? `&${query}` : ''}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    cursor = page.pagination.cursor;
  }
  return cursor;
}

function load(url, auth, duration) {
  return new Promise((resolve, reject) =>
    autocannon({ url, connections: CONNECTIONS, duration, headers: { authorization: auth } }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

function urlOf(base, entry) {
  return `${base}/v1/customer_verifications?limit=50${entry.query ? `&${entry.query}` : ''}${entry.cursor ? `&cursor=${entry.cursor}` : ''}`;
}

/**
 * Each query on both workspaces, alternately (small, large, small, large…), ROUNDS times: the
 * machine's other load drifts over minutes, and alternating spreads it over both sides. Medians.
 */
async function measure(small, large) {
  const figures = {};
  for (let index = 0; index < small.list.length; index += 1) {
    const name = small.list[index].name;
    const sides = [small, large].map((side) => ({ side, url: urlOf(side.base, side.list[index]), rps: [], mean: [], non2xx: 0 }));
    for (const entry of sides) await load(entry.url, entry.side.auth, WARMUP_S);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const entry of sides) {
        const result = await load(entry.url, entry.side.auth, DURATION_S);
        entry.rps.push(result['2xx'] / DURATION_S);
        entry.mean.push(result.latency.average);
        entry.non2xx += result.non2xx + result.errors;
      }
    }
    figures[name] = sides.map((entry) => ({ rps: median(entry.rps), mean: median(entry.mean), non2xx: entry.non2xx }));
    log(
      `${name}: ${figures[name].map((side, i) => `${[SMALL, LARGE][i]} rows ${side.rps.toFixed(0)} req/s, mean ${side.mean.toFixed(2)} ms`).join(' | ')}`,
    );
  }
  return figures;
}

/** Every plan node of the list's SQL for each query: sequential scans, indexes used, buffers touched. */
async function explain(sql, tenant, list) {
  const plans = [];
  for (const entry of list) {
    const after = entry.cursor ? JSON.parse(Buffer.from(entry.cursor.split('.')[1], 'base64url').toString('utf8')) : undefined;
    const { text, values } = listSql(tenant, entry.filters, after, 50);
    const { rows } = await sql.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
    const nodes = [];
    const walk = (node) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    const [{ Plan: plan, 'Execution Time': ms }] = rows[0]['QUERY PLAN'];
    walk(plan);
    const seqScans = nodes.filter((node) => node['Node Type'] === 'Seq Scan').length;
    const indexes = [...new Set(nodes.map((node) => node['Index Name']).filter(Boolean))];
    const buffers = plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
    log(
      `EXPLAIN ${entry.name}: ${indexes.join(', ') || 'no index'}, ${seqScans} seq scans, ${buffers} buffers, ${ms.toFixed(2)} ms`,
    );
    plans.push({ name: entry.name, seqScans, indexes, buffers });
  }
  return plans;
}

/** A database of its own holding `total` verifications of one workspace, its server, and the queries to measure. */
async function workspaceWith(total, port) {
  const database = await scratchDatabase(`verifications_${total}`);
  const server = await startServer({ databaseUrl: database.url, port });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  const auth = `Bearer ${rootKeyFrom(server.output())}`;
  for (let i = 0; i < CUSTOMERS; i += 1)
    await post(server.base, auth, '/v1/customers', { name: `checked ${i}`, currency: 'EUR' });
  const { rows: customers } = await sql.query('SELECT organization_id, workspace_id, id FROM customers ORDER BY created_at, id');
  const tenant = { organizationId: customers[0].organization_id, workspaceId: customers[0].workspace_id };
  const started = performance.now();
  await seed(
    sql,
    tenant,
    customers.map((row) => row.id),
    0,
    total,
  );
  log(`${total} verifications seeded (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  const list = queries(
    total,
    customers.map((row) => row.id),
  );
  for (const entry of list) if (entry.deep) entry.cursor = await deepCursor(server.base, auth, entry.query);
  return {
    base: server.base,
    auth,
    sql,
    tenant,
    list,
    close: async () => {
      await sql.end();
      await server.stop();
      await database.drop();
    },
  };
}

async function main() {
  const sides = [];
  try {
    sides.push(await workspaceWith(SMALL, PORT));
    sides.push(await workspaceWith(LARGE, PORT + 1));
    const [small, large] = sides;
    const figures = await measure(small, large);
    const plans = await explain(large.sql, large.tenant, large.list);

    const rows = large.list.map(({ name }) => {
      const [lo, hi] = figures[name];
      const ratio = lo.rps / hi.rps;
      return {
        figure: `list verifications, ${name}: ${LARGE} rows vs ${SMALL} (limit 50, ${CONNECTIONS} conn; mean ${lo.mean.toFixed(2)}→${hi.mean.toFixed(2)} ms)`,
        value: hi.rps,
        unit: 'req/s',
        reference: lo.rps,
        ratio,
        bar: '≤ 1.5× slower',
        pass: ratio <= 1.5 && lo.non2xx + hi.non2xx === 0,
        score: 1.5 / ratio,
      };
    });
    const seqScans = plans.reduce((sum, plan) => sum + plan.seqScans, 0);
    rows.push({
      figure: `sequential scans in EXPLAIN of the list's SQL, every filter, at ${LARGE} rows (max ${Math.max(...plans.map((plan) => plan.buffers))} buffers)`,
      value: seqScans,
      bar: '0',
      pass: seqScans === 0,
    });
    report('verifications', rows);
  } finally {
    for (const side of sides) await side.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
