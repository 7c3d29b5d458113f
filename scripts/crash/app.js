'use strict';
// The real server (dist/…/main.js), started and killed like a process in production.
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { sleep } = require('./cluster');

const root = join(__dirname, '../..');

class AppProcess {
  constructor(env) {
    this.env = env;
    this.child = null;
    this.output = [];
    this.exits = [];
    this.rootKey = null;
  }

  get base() {
    return `http://127.0.0.1:${this.env.PORT}`;
  }

  get alive() {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the server (its own process group) and waits for /health/ready. */
  async start() {
    const child = spawn('sh', [join(root, 'scripts/node24.sh'), join(root, 'dist/apps/api/apps/api/src/main.js')], {
      cwd: root,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    const read = (chunk) => {
      const text = chunk.toString('utf8');
      const key = /live:\s+(sk_live_\S+)/.exec(text);
      if (key) this.rootKey = key[1];
      this.output.push(...text.split('\n').filter((line) => line.trim() !== ''));
      this.output.splice(0, Math.max(0, this.output.length - 40));
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code, signal) => {
      if (this.child === child && !this.killing) this.exits.push({ code, signal, last: this.output.slice(-3) });
    });
    await this.waitReady();
  }

  /** /health/ready answers 200 (the database is up and migrated) within `ms`. */
  async waitReady(ms = 90_000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (!this.alive) throw new Error(`the server exited during start-up:\n${this.output.slice(-10).join('\n')}`);
      try {
        const response = await fetch(`${this.base}/health/ready`, { signal: AbortSignal.timeout(2_000) });
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`the server was not ready within ${ms / 1000} s:\n${this.output.slice(-10).join('\n')}`);
  }

  /** kill -9 of the whole process group. */
  async kill(signal = 'SIGKILL') {
    if (!this.alive) return;
    const child = this.child;
    this.killing = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, signal);
    await exited;
    this.killing = false;
  }
}

module.exports = { AppProcess };
