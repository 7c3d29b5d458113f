// Runs pgbench (the reference: raw PostgreSQL running a custom script) and parses its summary.
const { spawn } = require('node:child_process');
const { existsSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function pgbenchPath() {
  if (process.env.PGBENCH) return process.env.PGBENCH;
  for (const candidate of ['/usr/bin/pgbench', '/usr/lib/postgresql/15/bin/pgbench', '/usr/local/bin/pgbench']) {
    if (existsSync(candidate)) return candidate;
  }
  return 'pgbench';
}

/**
 * script: the custom script's text; vars: -D name=value; onSpawn(pid) lets a CPU sampler follow it.
 * Resolves { tps, latencyMs, transactions, failed }; rejects when pgbench fails or a client aborts.
 */
async function runPgbench({ url, script, clients, threads = 2, durationS, vars = {}, protocol = 'extended', onSpawn }) {
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-pgbench-'));
  const file = join(dir, 'script.sql');
  writeFileSync(file, script);
  const args = [
    '-n',
    '-M',
    protocol,
    '-c',
    String(clients),
    '-j',
    String(Math.min(threads, clients)),
    '-T',
    String(durationS),
    '-f',
    file,
  ];
  for (const [name, value] of Object.entries(vars)) args.push('-D', `${name}=${value}`);
  args.push(url);
  try {
    const { code, stdout, stderr } = await new Promise((resolve, reject) => {
      const child = spawn(pgbenchPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      // A stuck run must not hang the benchmark: pgbench gets its duration plus a margin.
      const killer = setTimeout(() => child.kill('SIGKILL'), (durationS + 60) * 1000);
      child.on('exit', (exitCode) => {
        clearTimeout(killer);
        resolve({ code: exitCode, stdout, stderr });
      });
      if (onSpawn) onSpawn(child.pid);
    });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    const latency = /latency average = ([\d.]+) ms/.exec(stdout);
    const transactions = /number of transactions actually processed: (\d+)/.exec(stdout);
    const failed = /number of failed transactions: (\d+)/.exec(stdout);
    if (code !== 0 || !tps || /aborted/.test(stderr)) {
      throw new Error(`pgbench failed (exit ${code}):\n${stderr.slice(-3000)}\n${stdout.slice(-1500)}`);
    }
    return {
      tps: Number(tps[1]),
      latencyMs: latency ? Number(latency[1]) : null,
      transactions: transactions ? Number(transactions[1]) : null,
      failed: failed ? Number(failed[1]) : 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { runPgbench };
