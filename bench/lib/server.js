// Starts the compiled server as a child process and waits until /health/ready answers 200.
const { spawn } = require('node:child_process');
const { join } = require('node:path');

const MAIN = join(__dirname, '..', '..', 'dist', 'apps', 'api', 'apps', 'api', 'src', 'main.js');

/** nodeArgs: flags for node itself (e.g. --cpu-prof), before the script; main: another compiled main.js (an A/B comparison). */
async function startServer({ databaseUrl, port, env = {}, nodeArgs = [], main = MAIN }) {
  let output = '';
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`server not ready within 60 s:\n${output}`);
    if (
      await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    base,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The root key printed in the first-start banner. */
function rootKeyFrom(output) {
  const match = /sk_live_[0-9A-Za-z]{49}/.exec(output);
  if (!match) throw new Error('no root key in the server output');
  return match[0];
}

module.exports = { startServer, rootKeyFrom };
