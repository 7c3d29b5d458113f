// P11: time from process start to /health/ready 200, on a fresh embedded PostgreSQL (initdb,
// migrations) and again on the same, now existing, data directory.
const { spawn } = require('node:child_process');
const { chmodSync, mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { report } = require('./lib/report');

const MAIN = join(__dirname, '..', 'dist', 'apps', 'api', 'apps', 'api', 'src', 'main.js');

async function timeToReady(env, port) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (performance.now() - startedAt > 60_000) throw new Error('server not ready within 60 s');
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return Math.round(performance.now() - startedAt);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-bench-startup-'));
  chmodSync(dataDir, 0o755); // as root, the embedded PostgreSQL runs as `postgres` and must reach it
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
  try {
    const fresh = await timeToReady(env, 3901);
    const existing = [];
    for (let run = 0; run < 3; run += 1) existing.push(await timeToReady(env, 3901));
    existing.sort((a, b) => a - b);
    const median = existing[1];
    report('startup', [
      {
        figure: 'P11 first start, embedded PostgreSQL',
        value: fresh,
        unit: 'ms',
        bar: '≤ 20000 ms',
        pass: fresh <= 20_000,
        score: 20_000 / fresh,
      },
      {
        figure: 'P11 start on an existing database (median of 3)',
        value: median,
        unit: 'ms',
        bar: '≤ 3000 ms',
        pass: median <= 3_000,
        score: 3_000 / median,
      },
    ]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
