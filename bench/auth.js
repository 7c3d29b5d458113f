// P7: the cost of authentication with a cached key and on a cache miss, the query plan of
// the miss, and the time for a revocation on one instance to reach a second instance.
const autocannon = require('autocannon');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

function run(url, headers, duration) {
  return new Promise((resolve, reject) =>
    autocannon({ url, headers, connections: 16, duration }, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

/** A short warm-up first, so that both figures are taken with a JIT-compiled hot path. */
async function load(url, headers) {
  await run(url, headers, 2);
  return run(url, headers, DURATION_S);
}

async function post(base, path, auth, body) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': `bench-${Math.random()}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function timeGet(url, auth) {
  const started = process.hrtime.bigint();
  const response = await fetch(url, { headers: { authorization: auth } });
  await response.arrayBuffer();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: response.status };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const database = await scratchDatabase('auth');
  const a = await startServer({ databaseUrl: database.url, port: 3911 });
  const b = await startServer({ databaseUrl: database.url, port: 3912 });
  try {
    const root = `Bearer ${rootKeyFrom(a.output())}`;

    // Throughput: a public route against the same route shape behind authentication (cached key).
    const open = await load(`${a.base}/health/live`, {});
    const authed = await load(`${a.base}/v1/permissions`, { authorization: root });

    // Miss vs hit: first and second use of fresh keys, one at a time.
    const misses = [];
    const hits = [];
    for (let i = 0; i < 200; i += 1) {
      const key = await post(a.base, '/v1/api_keys', root, { name: `bench ${i}`, scopes: ['api_keys:read'] });
      misses.push((await timeGet(`${b.base}/v1/permissions`, `Bearer ${key.secret}`)).ms);
      hits.push((await timeGet(`${b.base}/v1/permissions`, `Bearer ${key.secret}`)).ms);
    }

    const client = new Client({ connectionString: database.url });
    await client.connect();
    const plan = await client.query(
      `EXPLAIN (FORMAT JSON) SELECT id FROM api_keys WHERE secret_hash = decode(repeat('ab', 32), 'hex')`,
    );
    await client.end();
    const planNode = plan.rows[0]['QUERY PLAN'][0].Plan;

    // Revocation on A, observed on B (where the key is cached).
    const delays = [];
    for (let i = 0; i < 20; i += 1) {
      const key = await post(a.base, '/v1/api_keys', root, { name: `revoke ${i}`, scopes: ['api_keys:read'] });
      const auth = `Bearer ${key.secret}`;
      if ((await timeGet(`${b.base}/v1/permissions`, auth)).status !== 200) throw new Error('key not usable on B');
      const revokedAt = performance.now();
      await post(a.base, `/v1/api_keys/${key.id}/revoke`, root, {});
      for (;;) {
        if ((await timeGet(`${b.base}/v1/permissions`, auth)).status === 401) break;
        if (performance.now() - revokedAt > 5_000) throw new Error('revocation never reached B');
      }
      delays.push(performance.now() - revokedAt);
    }

    const overheadMs = authed.latency.average - open.latency.average;
    report('auth', [
      { figure: 'P7 GET /health/live (no auth), 16 conn', value: open.requests.average, unit: 'req/s' },
      {
        figure: 'P7 GET /v1/permissions, cached key, 16 conn',
        value: authed.requests.average,
        unit: 'req/s',
        reference: open.requests.average,
        ratio: authed.requests.average / open.requests.average,
        bar: 'in-process cache hit',
        pass: true,
        score: 2 * (authed.requests.average / open.requests.average),
      },
      { figure: 'P7 auth overhead per request (avg latency diff)', value: overheadMs, unit: 'ms' },
      {
        figure: 'P7 first use of a key (cache miss), median',
        value: median(misses),
        unit: 'ms',
        reference: median(hits),
        ratio: median(misses) / median(hits),
      },
      { figure: 'P7 second use (cache hit), median', value: median(hits), unit: 'ms' },
      {
        figure: 'P7 miss lookup plan',
        value: `${planNode['Node Type']} on ${planNode['Index Name'] ?? planNode['Relation Name']}`,
        bar: 'one indexed query',
        pass: /Index/.test(planNode['Node Type']),
        score: /Index/.test(planNode['Node Type']) ? 2 : 0.5,
      },
      {
        figure: 'P7 revocation visible on 2nd instance, max of 20',
        value: Math.max(...delays),
        unit: 'ms',
        reference: median(delays),
        bar: '≤ 1000 ms',
        pass: Math.max(...delays) <= 1000,
        score: 1000 / Math.max(...delays),
      },
    ]);
  } finally {
    await a.stop();
    await b.stop();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
