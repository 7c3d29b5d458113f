// First thing `npm start` does: refuse at once, before installing or building, when this
// directory's server already runs (its pid file in DATA_DIR names a live process) or when
// another process holds the port.
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { createConnection } = require('node:net');
const { join, resolve } = require('node:path');

const PID_FILE = 'server.pid';

/** The server named by DATA_DIR/server.pid (written by main.ts: "<pid> <url>"), if it still runs. */
function recordedServer(dataDir) {
  let text;
  try {
    text = readFileSync(join(dataDir, PID_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const [pid, url] = text.trim().split(/\s+/);
  return isServerProcess(Number(pid)) ? { pid: Number(pid), url } : undefined;
}

/** A live process running the API's main (a stale file may name a pid reused since). */
function isServerProcess(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    return /src\/main\.(js|ts)/.test(execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}

function portInUse(host, port) {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const answer = (inUse) => {
      socket.destroy();
      done(inUse);
    };
    socket.setTimeout(1000, () => answer(false));
    socket.once('connect', () => answer(true));
    socket.once('error', () => answer(false));
  });
}

/** Why this start must not go on, or undefined. */
async function whyNotStart(env, root) {
  const dataDir = resolve(root, env.DATA_DIR || '.data');
  const running = recordedServer(dataDir);
  if (running) {
    return (
      `The billing API already runs from this directory (pid ${running.pid}, ${running.url}).\n` +
      `Use that one, or stop it first (Ctrl-C in its terminal, or kill ${running.pid}).`
    );
  }
  const host = env.HOST && env.HOST !== '0.0.0.0' ? env.HOST : '127.0.0.1';
  const port = Number(env.PORT || 3000);
  if (await portInUse(host, port)) {
    return `Port ${port} on ${host} is already in use by another program: stop it, or start with PORT=<another port> npm start.`;
  }
  return undefined;
}

if (require.main === module) {
  whyNotStart(process.env, join(__dirname, '..')).then((reason) => {
    if (reason === undefined) return;
    process.stderr.write(`${reason}\n`);
    process.exit(1);
  });
}

module.exports = { whyNotStart, PID_FILE };
