// Money operations stay fast as a workspace grows. Debits per second on the same 1,000
// funded wallets, first with 1,000 wallets in the workspace, then with BENCH_SCALE_WALLETS
// (100,000), every customer and wallet created through the API, with statistics taken on the
// empty tables and no ANALYZE in between (autovacuum off for the run, as on these machines).
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const SMALL = 1_000;
const LARGE = Number(process.env.BENCH_SCALE_WALLETS ?? 100_000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const CONNECTIONS = 16;
const CREATE_PARALLEL = 32;
const PORT = Number(process.env.BENCH_PORT ?? 3951);

const log = (message) => console.log(`[wallet-scale ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function post(base, auth, path, body) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomBytes(12).toString('hex') },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** `count` calls of `fn(i)`, at most `parallel` in flight. */
async function inParallel(count, parallel, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Customers through the API, each created with its primary wallet in the same transaction. */
async function growTo(total, { base, auth, sql }) {
  const { rows } = await sql.query('SELECT count(*)::int AS n FROM customers');
  const started = performance.now();
  await inParallel(total - rows[0].n, CREATE_PARALLEL, (i) =>
    post(base, auth, '/v1/customers', { name: `scale customer ${rows[0].n + i}`, currency: 'USD' }),
  );
  log(`${total} customers and wallets in the workspace (+${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

function debits(base, auth, walletIds, duration) {
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url: base,
        connections: CONNECTIONS,
        duration,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              path: `/v1/wallets/${walletIds[Math.floor(Math.random() * walletIds.length)]}/debit`,
              headers: {
                authorization: auth,
                'content-type': 'application/json',
                'idempotency-key': randomBytes(12).toString('hex'),
              },
              body: '{"amount":"0.01"}',
            }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
}

async function measure(label, { base, auth }, walletIds) {
  await debits(base, auth, walletIds, WARMUP_S);
  const result = await debits(base, auth, walletIds, DURATION_S);
  const rps = result['2xx'] / DURATION_S;
  log(`${label}: ${rps.toFixed(0)} debits/s, p99 ${result.latency.p99} ms, ${result.non2xx} non-2xx`);
  return { rps, non2xx: result.non2xx + result.errors };
}

async function main() {
  const database = await scratchDatabase('scale');
  const server = await startServer({ databaseUrl: database.url, port: PORT });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  try {
    const auth = `Bearer ${rootKeyFrom(server.output())}`;
    const context = { base: server.base, auth, sql };
    const { rows: tables } = await sql.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
    for (const { tablename } of tables) await sql.query(`ALTER TABLE "${tablename}" SET (autovacuum_enabled = false)`);
    await sql.query('ANALYZE');

    await growTo(SMALL, context);
    const { rows } = await sql.query('SELECT id FROM wallets ORDER BY created_at LIMIT $1', [SMALL]);
    const walletIds = rows.map((row) => row.id);
    await inParallel(walletIds.length, CREATE_PARALLEL, (i) =>
      post(server.base, auth, `/v1/wallets/${walletIds[i]}/credit`, { amount: '1000000.00', source: 'PAYMENT' }),
    );
    const small = await measure(`${SMALL} wallets`, context, walletIds);

    await growTo(LARGE, context);
    const large = await measure(`${LARGE} wallets`, context, walletIds);

    const ratio = small.rps / large.rps;
    report('wallet-scale', [
      {
        figure: `debits/s at ${LARGE} wallets in one workspace (created through the API, no ANALYZE) vs ${SMALL}, 16 conn`,
        value: large.rps,
        unit: 'req/s',
        reference: small.rps,
        ratio,
        bar: '≤ 1.5× slower',
        pass: ratio <= 1.5 && small.non2xx + large.non2xx === 0,
        score: 1.5 / ratio,
      },
      {
        figure: 'debits at scale: non-2xx + errors (both runs)',
        value: small.non2xx + large.non2xx,
        bar: '0',
        pass: small.non2xx + large.non2xx === 0,
      },
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
