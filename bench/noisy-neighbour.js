// P18, noisy neighbour: organization B's GET p99 and its one-product cascade time while
// organization A drives its worst allowed PDF previews (over HTTP, at its preview rate limit) and
// a cascade over BENCH_NOISY_PRODUCTS (10,000) products, each against the same figures measured on
// the idle server in the same run; and the event loop's longest stall, as the server logs it
// (`event_loop` lines, EVENT_LOOP_REPORT_SECONDS).
//
//   sh scripts/node24.sh bench/noisy-neighbour.js
//   BENCH_DURATION_S=10 BENCH_NOISY_PRODUCTS=2000 sh scripts/node24.sh bench/noisy-neighbour.js
//
// The server runs with its production rate limits (1,000 requests a minute per caller, 60 previews
// a minute per organization): B's GETs are paced under the first, A's previews at the second. A's
// products: one consumer of A's cost is made over HTTP, the other ones are copies of its rows made
// by SQL (10,000 publishes over HTTP would take longer than the measurement). Renders are what the
// preview route runs, so once they leave the event loop this measures that.
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { startServer } = require('./lib/server');
const { jsonCaller } = require('./lib/http-load');

const DIST = join(__dirname, '..', 'dist', 'apps', 'api');
const { SYSTEM_TEMPLATE_IDS } = require(join(DIST, 'libs', 'documents', 'src', 'domain', 'system-templates'));

const PRODUCTS = Number(process.env.BENCH_NOISY_PRODUCTS ?? 10_000);
// Each phase takes about 900 of B's GETs (15 a second for 60 s, under its 1,000-a-minute limit):
// a p99 over 360 (12 a second for 30 s) was the 4th-slowest GET, and one stray pause moved it by half.
const DURATION_S = Number(process.env.BENCH_NOISY_DURATION_S ?? process.env.BENCH_DURATION_S ?? 60);
const CASCADES = Number(process.env.BENCH_NOISY_CASCADES ?? 5);
const GETS_PER_SECOND = 15;
const PREVIEWS_PER_MINUTE = 60;
const PORT = Number(process.env.BENCH_PORT ?? 3971);
const REPORT_SECONDS = 1;

const log = (message) => console.log(`[noisy-neighbour ${new Date().toISOString().slice(11, 19)}] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

function client(base, auth) {
  const call = jsonCaller(base, auth);
  return {
    base,
    auth,
    get: (path) => call('GET', path),
    post: (path, body = {}) => call('POST', path, body),
    patch: (path, body) => call('PATCH', path, body),
  };
}

/** An organization of its own, made by the operator command (its live root key). */
function bootstrap(databaseUrl, name) {
  const result = spawnSync(
    process.execPath,
    [join(DIST, 'apps', 'api', 'src', 'cli-main.js'), 'bootstrap', '--organization', name, '--json'],
    { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`bootstrap ${name}: ${result.stderr}`);
  const line = JSON.parse(result.stdout.trim().split('\n').at(-1));
  return { organizationId: line.organization_id, auth: `Bearer ${line.api_key.secret}` };
}

/** A cost and `count` live products whose price uses it: one over HTTP, the others copies of its rows. */
async function consumers(api, sql, key, count) {
  const cost = await api.post('/v1/costs', { key, amount: '10.00' });
  const product = await api.post('/v1/products', { name: `${key} consumer`, price_expression: `${key} * 2` });
  await api.post('/v1/changes', {
    operation: 'catalog.publish_version',
    subject_kind: 'product',
    subject_id: product.id,
    staged_version_id: (await api.get(`/v1/products/${product.id}`)).draft_version.id,
  });
  const live = await api.get(`/v1/products/${product.id}`);
  const { rows } = await sql.query(`SELECT head_version_id FROM products WHERE id = $1`, [product.id]);
  const head = rows[0].head_version_id;
  if (count > 1) {
    await sql.query('BEGIN');
    await sql.query(
      `CREATE TEMP TABLE clones ON COMMIT DROP AS SELECT gen_random_uuid() AS pid, gen_random_uuid() AS vid, g FROM generate_series(1, $1) g`,
      [count - 1],
    );
    await sql.query(
      `INSERT INTO products SELECT (jsonb_populate_record(NULL::products, to_jsonb(p) || jsonb_build_object(
         'id', c.pid, 'head_version_id', c.vid, 'draft_version_id', NULL, 'name', p.name || ' ' || c.g))).*
         FROM products p, clones c WHERE p.id = $1`,
      [product.id],
    );
    // Each copy's foreign keys are checked against the copies made just before: planned on fresh statistics, not on an empty table.
    await sql.query('ANALYZE products');
    await sql.query(
      `INSERT INTO product_versions SELECT (jsonb_populate_record(NULL::product_versions, to_jsonb(v) || jsonb_build_object('id', c.vid, 'product_id', c.pid))).*
         FROM product_versions v, clones c WHERE v.id = $1`,
      [head],
    );
    await sql.query('ANALYZE product_versions');
    await sql.query(
      `INSERT INTO product_version_costs SELECT (jsonb_populate_record(NULL::product_version_costs, to_jsonb(e) || jsonb_build_object('product_version_id', c.vid))).*
         FROM product_version_costs e, clones c WHERE e.product_version_id = $1`,
      [head],
    );
    await sql.query('COMMIT');
    await sql.query('ANALYZE product_version_costs');
  }
  return { cost, product: live };
}

/** A cost value change: its cascade run's id. */
async function cascade(api, cost, amount) {
  const saved = await api.patch(`/v1/costs/${cost.id}`, { amount });
  return saved.cascade_run_id;
}

/** Milliseconds from the cost change to its run's last task, polled in the database (not against B's rate limit). */
async function timedCascade(api, sql, cost, amount) {
  const started = performance.now();
  const runId = await cascade(api, cost, amount);
  for (;;) {
    const { rows } = await sql.query(
      `SELECT r.status, (SELECT count(*)::int FROM cascade_tasks t WHERE t.run_id = r.id AND t.status = 'pending') AS pending
         FROM cascade_runs r WHERE r.id = $1`,
      [runId],
    );
    if (rows[0].status !== 'pending' && rows[0].pending === 0) return performance.now() - started;
    await sleep(10);
  }
}

/** B's GETs paced at GETS_PER_SECOND for `seconds`: latencies in ms. */
async function paceGets(api, path, seconds) {
  const latencies = [];
  const inFlight = [];
  const start = performance.now();
  for (let i = 0; performance.now() - start < seconds * 1000; i += 1) {
    const due = start + (i * 1000) / GETS_PER_SECOND;
    if (due > performance.now()) await sleep(due - performance.now());
    const t0 = performance.now();
    inFlight.push(api.get(path).then(() => latencies.push(performance.now() - t0)));
  }
  await Promise.all(inFlight);
  return latencies;
}

/** B's figures: GET p99 while its cascades run one after another. */
async function measureQuiet(quiet, sql, label) {
  const gets = paceGets(quiet.api, `/v1/products/${quiet.product.id}`, DURATION_S);
  const cascades = [];
  for (let i = 0; i < CASCADES; i += 1) {
    cascades.push(await timedCascade(quiet.api, sql, quiet.cost, `${label === 'idle' ? 11 : 21}.${String(i).padStart(2, '0')}`));
    await sleep((DURATION_S * 1000) / (CASCADES + 1) / 2);
  }
  const latencies = await gets;
  const figures = { p99: percentile(latencies, 99), gets: latencies.length, cascadeMs: median(cascades), cascades };
  log(
    `${label}: B's GET p99 ${figures.p99.toFixed(1)} ms over ${figures.gets} requests; one-product cascade median ${figures.cascadeMs.toFixed(0)} ms (${cascades.map((ms) => ms.toFixed(0)).join(', ')})`,
  );
  return figures;
}

/** The heaviest document the preview accepts: 40 blocks, the free text ones at their 4,000 characters, fewer if refused. */
async function heaviestPreview(api) {
  const prose = 'Payment is due within thirty days of the invoice date; late payments accrue interest as agreed. '
    .repeat(42)
    .slice(0, 4000);
  const url = `/v1/document_templates/${SYSTEM_TEMPLATE_IDS.invoice}/preview`;
  for (let texts = 37; texts >= 1; texts = Math.floor(texts / 2)) {
    const body = {
      template_json: {
        theme: {
          font_family: 'DejaVu Serif',
          font_size: 6,
          heading_size: 36,
          colors: {
            primary: '#7a1f3d',
            text: '#202020',
            muted: '#707070',
            table_header_background: '#f4eef0',
            border: '#dddddd',
          },
          spacing: 0,
          page: { size: 'A4', margins: { top: 18, right: 18, bottom: 18, left: 18 } },
        },
        branding: { company_name: 'Noisy Ltd', logo: null, accent_bar: true },
        blocks: [
          { type: 'header', title: 'Invoice', show_logo: false, align: 'left' },
          {
            type: 'line_items',
            columns: [
              { key: 'description', label: 'Item', width: null },
              { key: 'amount', label: 'Amount', width: 20 },
            ],
            striped: true,
          },
          { type: 'totals', show_tax_summary: true },
          ...Array.from({ length: texts }, () => ({ type: 'free_text', text: prose, align: 'left' })),
        ],
        footer: { legal_text: 'Noisy Ltd, registered in nowhere.', show_page_numbers: true },
      },
    };
    const t0 = performance.now();
    const response = await fetch(`${api.base}${url}`, {
      method: 'POST',
      headers: { authorization: api.auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const bytes = (await response.arrayBuffer()).byteLength;
    if (response.ok) {
      log(
        `A's preview: ${texts} free text blocks of 4,000 characters, ${bytes} bytes in ${(performance.now() - t0).toFixed(0)} ms`,
      );
      // A distinct company name per request: the preview cache never answers, every preview renders.
      return {
        url,
        body: (i) =>
          JSON.stringify({
            ...body,
            template_json: { ...body.template_json, branding: { ...body.template_json.branding, company_name: `Noisy ${i}` } },
          }),
      };
    }
    log(`A's preview with ${texts} free text blocks answered ${response.status}: trying fewer`);
  }
  throw new Error('no preview accepted');
}

/** A's previews at its rate limit until `stop()`; counts answers by status. */
function drivePreviews(api, preview) {
  const statuses = {};
  let running = true;
  const inFlight = new Set();
  const loop = (async () => {
    for (let i = 0; running; i += 1) {
      const request = fetch(`${api.base}${preview.url}`, {
        method: 'POST',
        headers: { authorization: api.auth, 'content-type': 'application/json' },
        body: preview.body(i),
      })
        .then(async (response) => {
          await response.arrayBuffer();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        })
        .catch(() => (statuses.error = (statuses.error ?? 0) + 1))
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
      await sleep(60_000 / PREVIEWS_PER_MINUTE);
    }
  })();
  return {
    statuses,
    stop: async () => {
      running = false;
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/** The longest event loop delay in the server's `event_loop` lines logged between two points of its output. */
function longestStall(output, from, to) {
  let max = 0;
  let lines = 0;
  for (const line of output.slice(from, to).split('\n')) {
    if (!line.includes('"event_loop"')) continue;
    const entry = JSON.parse(line);
    max = Math.max(max, entry.event_loop.max_ms);
    lines += 1;
  }
  if (lines === 0) throw new Error('the server logged no event_loop line');
  return max;
}

async function main() {
  const database = await scratchDatabase('noisy');
  const env = {
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '1000',
    PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: String(PREVIEWS_PER_MINUTE),
    EVENT_LOOP_REPORT_SECONDS: String(REPORT_SECONDS),
  };
  const server = await startServer({ databaseUrl: database.url, port: PORT, env });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  let previews;
  try {
    const noisyOrg = bootstrap(database.url, 'Noisy');
    const quietOrg = bootstrap(database.url, 'Quiet');
    const noisy = client(server.base, noisyOrg.auth);
    const quietApi = client(server.base, quietOrg.auth);
    const quiet = { api: quietApi, ...(await consumers(quietApi, sql, 'quiet_fee', 1)) };
    log(`seeding ${PRODUCTS} consumers of A's cost (1 over HTTP, ${PRODUCTS - 1} by SQL)`);
    const seedStart = performance.now();
    const loud = await consumers(noisy, sql, 'noisy_fee', PRODUCTS);
    log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    const preview = await heaviestPreview(noisy);
    await quietApi.get(`/v1/products/${quiet.product.id}`);

    // The interval that held the calibration previews is logged before the idle figures start.
    await sleep(REPORT_SECONDS * 2000);
    const idleFrom = server.output().length;
    const idle = await measureQuiet(quiet, sql, 'idle');
    await sleep(REPORT_SECONDS * 1500);
    const idleStall = longestStall(server.output(), idleFrom, server.output().length);

    const loadFrom = server.output().length;
    previews = drivePreviews(noisy, preview);
    const patchStart = performance.now();
    const noisyRun = await cascade(noisy, loud.cost, '12.00');
    log(
      `A's cost change answered in ${((performance.now() - patchStart) / 1000).toFixed(1)} s (its pre-flight prices every consumer)`,
    );
    await sleep(3000);
    const loaded = await measureQuiet(quiet, sql, 'loaded');
    await previews.stop();
    const previewStatuses = previews.statuses;
    previews = undefined;
    await sleep(REPORT_SECONDS * 1500);
    const loadStall = longestStall(server.output(), loadFrom, server.output().length);
    const { rows } = await sql.query(
      `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*)::int AS total FROM cascade_tasks WHERE run_id = $1`,
      [noisyRun],
    );
    const noisyPending = PRODUCTS - rows[0].total + rows[0].pending;
    log(`A's previews: ${JSON.stringify(previewStatuses)}; A's cascade still pending at the end: ${noisyPending} of ${PRODUCTS}`);
    log(`event loop longest stall: idle ${idleStall} ms, loaded ${loadStall} ms`);

    report('noisy-neighbour', [
      {
        figure: "B's GET p99 while A renders and cascades, vs idle",
        value: loaded.p99,
        unit: 'ms',
        reference: idle.p99,
        ratio: loaded.p99 / idle.p99,
        bar: '≤ 1.5×',
        pass: loaded.p99 / idle.p99 <= 1.5,
      },
      {
        figure: "B's one-product cascade while A renders and cascades, vs idle",
        value: loaded.cascadeMs,
        unit: 'ms',
        reference: idle.cascadeMs,
        ratio: loaded.cascadeMs / idle.cascadeMs,
        bar: '≤ 2×',
        pass: loaded.cascadeMs / idle.cascadeMs <= 2,
      },
      {
        figure: 'event loop longest stall under load',
        value: loadStall,
        unit: 'ms',
        reference: idleStall,
        bar: '≤ 100 ms',
        pass: loadStall <= 100,
      },
      { figure: `A's cascade of ${PRODUCTS} products: tasks still pending when B's measurement ended`, value: noisyPending },
    ]);
  } finally {
    await previews?.stop();
    await sql.end();
    await server.stop();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
