// Where the API server's CPU goes on the money path: a V8 CPU profile (`node --cpu-prof`) of the
// compiled server while autocannon drives POST /v1/wallets/{id}/debit (a unique Idempotency-Key
// per request, a random wallet among PROFILE_WALLETS) at 16 connections. Not part of `npm run
// bench`: a tool for finding what to make cheaper, with short runs.
//
//   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
//     sh scripts/node24.sh bench/profile-debit.js
//
// Prints the server's CPU milliseconds per request (process CPU time over the measured window /
// 2xx answers), req/s, and the top self-time functions of the measured window only (samples
// outside it, such as startup and the warm-up, are left out), aggregated by function + file and
// by package (our code, fastify, class-validator, typeorm, pg, pino, node internals, GC...).
// The profile itself stays in PROFILE_DIR (a temporary directory unless set) for Chrome DevTools.
//
//   PROFILE_DURATION_S   measured load (default 10)      PROFILE_WARMUP_S  warm-up before it (default 3)
//   PROFILE_WALLETS      wallets seeded (default 1000)   PROFILE_TOP       table rows (default 25)
//   PROFILE_DIR          where the .cpuprofile goes      PROFILE_JSON=1    also print the figures as JSON
const { mkdtempSync, readdirSync, readFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const { Client } = require('pg');
const { scratchDatabase, freePort } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');
const { CpuSampler, findProcess } = require('./lib/cpu-sampler');
const { agent, cannon, expectOk, request } = require('./lib/http-load');
const { helperFunctions } = require('./wallets');

const DURATION_S = Number(process.env.PROFILE_DURATION_S ?? 10);
const WARMUP_S = Number(process.env.PROFILE_WARMUP_S ?? 3);
const WALLETS = Number(process.env.PROFILE_WALLETS ?? 1000);
const TOP = Number(process.env.PROFILE_TOP ?? 25);
const ROOT = join(__dirname, '..');

const log = (message) => console.log(`[profile ${new Date().toISOString().slice(11, 19)}] ${message}`);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n); // V8's profile clock (CLOCK_MONOTONIC)

/** The package a profile node's script belongs to: an npm package, our code, node's own, or V8's. */
function packageOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/dist/')) return 'ours';
  return url;
}

/** Where a script is, short: our files relative to dist's compiled tree, a package's from its name. */
function shortFile(url) {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  const dist = /\/dist\/apps\/api\/(.*)$/.exec(path);
  if (dist) return dist[1].replace(/^apps\/api\/src\//, 'api/');
  return path.startsWith('/') ? relative(ROOT, path) : path;
}

/** Self time (ms) per function + file and per package, of the samples taken between fromUs and toUs. */
function selfTimes(profile, fromUs, toUs) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  let t = profile.startTime;
  let inWindow = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t += profile.timeDeltas[i];
    // The interval up to the next sample is this sample's (V8's own convention).
    const next = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    if (t < fromUs || t > toUs) continue;
    inWindow += 1;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(0, next));
  }
  const byFunction = new Map();
  const byPackage = new Map();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    totalUs += us;
    const name = `${functionName || '(anonymous)'} ${shortFile(url)}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const pkg = packageOf(url, functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const sorted = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000 }));
  return {
    inWindow,
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    byFunction: sorted(byFunction),
    byPackage: sorted(byPackage),
  };
}

function table(rows, totalMs, requests, limit) {
  const width = Math.min(110, Math.max(...rows.slice(0, limit).map((r) => r.name.length), 10));
  return rows
    .slice(0, limit)
    .map(
      ({ name, ms }) =>
        `  ${((ms / totalMs) * 100).toFixed(1).padStart(5)} %  ${((ms / requests) * 1000).toFixed(1).padStart(6)} µs/req  ${name.slice(0, width)}`,
    )
    .join('\n');
}

/** `count` funded USD wallets, as bench/wallets.js seeds them (a customer, a primary wallet and its funding line each); their ids. */
async function seedWallets(sql, count) {
  const [{ organization_id: org, id: ws }] = (await sql.query(`SELECT organization_id, id FROM workspaces WHERE slug = 'live'`))
    .rows;
  await sql.query(helperFunctions(Date.now() - 86_400_000));
  await sql.query(
    `INSERT INTO customers (organization_id, workspace_id, id, name, currency, created_at)
     SELECT $1, $2, bench_cid(n), 'profile customer ' || n, 'USD', now() FROM generate_series(1, $3::int) n`,
    [org, ws, count],
  );
  await sql.query(
    `INSERT INTO wallets (organization_id, workspace_id, id, customer_id, currency, is_primary, cash_balance, created_at, updated_at)
     SELECT $1, $2, bench_wid(n), bench_cid(n), 'USD', true, 1000000, now(), now() FROM generate_series(1, $3::int) n`,
    [org, ws, count],
  );
  await sql.query(
    `INSERT INTO wallet_transactions (organization_id, workspace_id, wallet_id, id, type, source, amount, currency, cash_amount,
       promotional_amount, ending_cash_balance, ending_promotional_balance, reason, created_by_type, created_at)
     SELECT w.organization_id, w.workspace_id, w.id, bench_uuid7(), 'credit', 'PAYMENT', w.cash_balance, w.currency, w.cash_balance,
            0, w.cash_balance, 0, 'profile funding', 'system', w.created_at
       FROM wallets w WHERE w.organization_id = $1 AND w.workspace_id = $2`,
    [org, ws],
  );
  await sql.query('VACUUM ANALYZE customers, wallets, wallet_transactions');
  return (await sql.query('SELECT bench_wid(n)::text AS id FROM generate_series(1, $1::int) n', [count])).rows.map((r) => r.id);
}

/** A debit of 0.01 on a wallet drawn at random, for cannon(). */
const debitOf = (walletIds) => () => ({
  path: `/v1/wallets/${walletIds[Math.floor(Math.random() * walletIds.length)]}/debit`,
  body: '{"amount":"0.01"}',
});

async function main() {
  const profileDir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'billing-profile-debit-'));
  const database = await scratchDatabase('profile');
  const databaseName = new URL(database.url).pathname.slice(1);
  const port = await freePort();
  let server = null;
  const sql = new Client({ connectionString: database.url });
  try {
    server = await startServer({
      databaseUrl: database.url,
      port,
      nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`],
    });
    const auth = `Bearer ${rootKeyFrom(server.output())}`;
    const serverPid = findProcess('main.js', [`PORT=${port}`, `DATABASE_URL=${database.url}`]);
    await sql.connect();
    const walletIds = await seedWallets(sql, WALLETS);
    const debitBuild = debitOf(walletIds);
    await expectOk(request(server.base, auth, 'POST', debitBuild().path, { amount: '0.01' }), 'first debit');
    log(`${WALLETS} wallets seeded; warm-up ${WARMUP_S} s`);
    if (WARMUP_S > 0) await cannon({ base: server.base, auth, durationS: WARMUP_S, build: debitBuild });

    log(`measured: ${DURATION_S} s of debits at 16 connections`);
    const cpu = new CpuSampler({ database: databaseName, serverPid });
    const fromUs = monotonicUs();
    cpu.start();
    const result = await cannon({ base: server.base, auth, durationS: DURATION_S, build: debitBuild });
    const usage = cpu.stop(result.ok);
    const toUs = monotonicUs();
    await server.stop(); // SIGTERM: a graceful exit, which writes the profile
    server = null;

    const file = readdirSync(profileDir)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(profileDir, name))
      .sort()
      .pop();
    if (!file) throw new Error(`no .cpuprofile in ${profileDir}`);
    const profile = JSON.parse(readFileSync(file, 'utf8'));
    let times = selfTimes(profile, fromUs, toUs);
    if (times.inWindow === 0) {
      log('no sample inside the measured window (clocks differ?): the whole profile is counted');
      times = selfTimes(profile, -Infinity, Infinity);
    }
    const requests = result.ok;
    const f = (v, digits = 3) => (v === null || v === undefined ? '—' : v.toFixed(digits));
    console.log(`
debit: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${requests} ok, non-2xx ${result.non2xx}, errors ${result.errors}
server CPU: ${f(usage.perUnit.server)} ms/request (kernel ${f(usage.perUnit.serverKernel)}), PostgreSQL ${f(usage.perUnit.postgres)} ms/request, load generator ${f(usage.perUnit.loadgen)}, other ${f(usage.perUnit.other)}
profile: ${file}
  ${times.inWindow} samples in the window, ${f(times.totalMs, 0)} ms busy (${f(times.totalMs / requests)} ms/request), ${f(times.idleMs, 0)} ms idle

self time by package:
${table(times.byPackage, times.totalMs, requests, 20)}

top ${TOP} self time by function + file:
${table(times.byFunction, times.totalMs, requests, TOP)}
`);
    if (process.env.PROFILE_JSON)
      console.log(
        JSON.stringify({
          rps: result.rps,
          serverCpuMsPerRequest: usage.perUnit.server,
          profileMsPerRequest: times.totalMs / requests,
          byPackage: times.byPackage.slice(0, 20),
          byFunction: times.byFunction.slice(0, TOP),
        }),
      );
    if (result.non2xx || result.errors) process.exitCode = 1;
  } finally {
    if (server) await server.stop();
    await sql.end().catch(() => undefined);
    agent.destroy();
    await database.drop().catch((error) => console.error(`drop failed: ${error.message}`));
  }
}

module.exports = { seedWallets, debitOf };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
