// Server CPU per debit of two builds of the API, measured in alternating slices so that both see
// the same noise on a shared machine: each build runs as its own server on its own scratch
// database (seeded as bench/profile-debit.js seeds it), and autocannon drives POST
// /v1/wallets/{id}/debit at 16 connections at one server, then the other, SLICES times each.
// Not part of `npm run bench`: a before/after check for a change to the request path.
//
//   npm run build && cp -a dist /tmp/dist-before   (at the commit before the change)
//   npm run build                                   (with the change)
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
//     sh scripts/node24.sh bench/compare-debit.js /tmp/dist-before dist
//
// A compiled tree outside the repository still needs node_modules: keep the copies inside it
// (e.g. under .data/, which git ignores). Prints, per build, req/s and server CPU ms per request
// of every slice and of all slices together, and the ratio B/A.
//
//   COMPARE_SLICES     slices per build (default 6)        COMPARE_SLICE_S  seconds each (default 2)
//   COMPARE_WARMUP_S   warm-up per server (default 3)      COMPARE_WALLETS  wallets per database (default 1000)
//   COMPARE_LOG_LEVEL  the servers' LOG_LEVEL (default warn, as every bench server; `info` writes a line per request)
const { join, resolve } = require('node:path');
const { Client } = require('pg');
const { scratchDatabase, freePort } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');
const { CpuSampler, findProcess } = require('./lib/cpu-sampler');
const { agent, cannon } = require('./lib/http-load');
const { seedWallets, debitOf } = require('./profile-debit');

const SLICES = Number(process.env.COMPARE_SLICES ?? 6);
const SLICE_S = Number(process.env.COMPARE_SLICE_S ?? 2);
const WARMUP_S = Number(process.env.COMPARE_WARMUP_S ?? 3);
const WALLETS = Number(process.env.COMPARE_WALLETS ?? 1000);
const SERVER_ENV = process.env.COMPARE_LOG_LEVEL ? { LOG_LEVEL: process.env.COMPARE_LOG_LEVEL } : {};

const log = (message) => console.log(`[compare ${new Date().toISOString().slice(11, 19)}] ${message}`);
const mainOf = (tree) => join(resolve(tree), 'apps', 'api', 'apps', 'api', 'src', 'main.js');

async function startBuild(label, tree, resources) {
  const database = await scratchDatabase(`compare_${label.toLowerCase()}`);
  resources.push(() => database.drop());
  const port = await freePort();
  const server = await startServer({ databaseUrl: database.url, port, env: SERVER_ENV, main: mainOf(tree) });
  resources.push(() => server.stop());
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  resources.push(() => sql.end());
  const walletIds = await seedWallets(sql, WALLETS);
  return {
    label,
    tree,
    server,
    auth: `Bearer ${rootKeyFrom(server.output())}`,
    databaseName: new URL(database.url).pathname.slice(1),
    pid: findProcess(mainOf(tree), [`PORT=${port}`, `DATABASE_URL=${database.url}`]),
    build: debitOf(walletIds),
    slices: [],
  };
}

async function slice(build) {
  const cpu = new CpuSampler({ database: build.databaseName, serverPid: build.pid });
  cpu.start();
  const result = await cannon({ base: build.server.base, auth: build.auth, durationS: SLICE_S, build: build.build });
  const usage = cpu.stop(result.ok);
  build.slices.push({ ok: result.ok, seconds: result.seconds, serverMs: usage.ms.server, failed: result.non2xx + result.errors });
  return `${build.label} ${result.rps.toFixed(0)} req/s ${(usage.perUnit.server ?? NaN).toFixed(3)} ms/req`;
}

function summary(build) {
  const ok = build.slices.reduce((total, s) => total + s.ok, 0);
  const seconds = build.slices.reduce((total, s) => total + s.seconds, 0);
  const serverMs = build.slices.reduce((total, s) => total + s.serverMs, 0);
  const failed = build.slices.reduce((total, s) => total + s.failed, 0);
  const perSlice = build.slices.map((s) => (s.serverMs / s.ok).toFixed(3)).join(' ');
  return { ok, rps: ok / seconds, cpuMs: serverMs / ok, failed, perSlice };
}

async function main() {
  const [treeA, treeB] = process.argv.slice(2);
  if (!treeA || !treeB) throw new Error('usage: compare-debit.js <compiled tree A> <compiled tree B>');
  const resources = [];
  try {
    const a = await startBuild('A', treeA, resources);
    const b = await startBuild('B', treeB, resources);
    if (!a.pid || !b.pid) throw new Error('server process not found');
    log(`${WALLETS} wallets each; warm-up ${WARMUP_S} s each`);
    for (const build of [a, b])
      await cannon({ base: build.server.base, auth: build.auth, durationS: WARMUP_S, build: build.build });
    for (let i = 0; i < SLICES; i += 1) {
      // ABBA order: neither build always goes first.
      const order = i % 2 === 0 ? [a, b] : [b, a];
      const lines = [];
      for (const build of order) lines.push(await slice(build));
      log(`slice ${i + 1}/${SLICES}: ${lines.join(', ')}`);
    }
    const sa = summary(a);
    const sb = summary(b);
    for (const [build, s] of [
      [a, sa],
      [b, sb],
    ])
      console.log(
        `${build.label} (${build.tree}): ${s.rps.toFixed(0)} req/s, server CPU ${s.cpuMs.toFixed(3)} ms/request over ${s.ok} requests (slices: ${s.perSlice}), failed ${s.failed}`,
      );
    console.log(`B/A: server CPU per request ${(sb.cpuMs / sa.cpuMs).toFixed(3)}, req/s ${(sb.rps / sa.rps).toFixed(3)}`);
    if (sa.failed || sb.failed) process.exitCode = 1;
  } finally {
    for (const release of resources.reverse()) await Promise.resolve(release()).catch((error) => console.error(error.message));
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
