// Where the CPU goes during a load segment: the API server process, the PostgreSQL backends
// serving one database, an external load generator (pgbench), this process (autocannon), and
// the whole machine (/proc/stat), so that "other" reveals noise from outside the benchmark.
// Linux only; returns null figures elsewhere.
const { readdirSync, readFileSync } = require('node:fs');

const TICK_MS = 10; // USER_HZ is 100 on Linux
const INTERVAL_MS = 250;

function ticksOf(pid, which = 'both') {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    return which === 'system' ? system : user + system;
  } catch {
    return null;
  }
}

function machineTicks() {
  try {
    const [line] = readFileSync('/proc/stat', 'utf8').split('\n');
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = values[3] + (values[4] ?? 0);
    const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total, interrupts: (values[5] ?? 0) + (values[6] ?? 0) };
  } catch {
    return null;
  }
}

/** Every process's CPU ticks and a short name, to find out who else used the machine. */
function allProcesses() {
  const out = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const ticks = ticksOf(entry);
    if (ticks === null) continue;
    let name;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const backend = argv.length === 1 ? /^postgres: (?:\S+: )?\S+ (\S+) /.exec(argv[0]) : null;
      if (backend) name = `postgres backends of ${backend[1]}`;
      else if (argv.length && argv[0].startsWith('postgres: ')) name = 'postgres auxiliary processes';
      else if (argv.length)
        name = argv
          .slice(0, 3)
          .map((arg) => arg.split('/').pop())
          .join(' ')
          .slice(0, 60);
      else name = `[${readFileSync(`/proc/${entry}/comm`, 'utf8').trim()}]`;
    } catch {
      name = '?';
    }
    out.set(Number(entry), { ticks, name });
  }
  return out;
}

/** PostgreSQL backends connected to `database`: "postgres: [cluster_name: ]user database host ...". */
function backendsOf(database) {
  const pids = [];
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const match = /^postgres: (?:\S+: )?\S+ (\S+) /.exec(title);
      if (match && match[1] === database) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The process whose command line mentions `needle` and whose environment holds every `NAME=value` given. */
function findProcess(needle, environment) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) continue;
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environment.every((pair) => env.includes(pair))) return Number(entry);
    } catch {
      // not ours
    }
  }
  return null;
}

class CpuSampler {
  /** database: the scratch database's name; serverPid: the API server; extraPid(): e.g. pgbench, once spawned. */
  constructor({ database, serverPid }) {
    this.database = database;
    this.serverPid = serverPid;
    this.extraPid = null;
  }

  start() {
    this.startedAt = performance.now();
    this.self = process.cpuUsage();
    this.machine = machineTicks();
    this.everyone = allProcesses();
    this.server = { first: this.serverPid ? ticksOf(this.serverPid) : null, last: null };
    this.serverSystem = { first: this.serverPid ? ticksOf(this.serverPid, 'system') : null, last: null };
    this.backends = new Map(); // pid -> { first, last }
    this.extra = new Map();
    for (const pid of backendsOf(this.database)) this.backends.set(pid, { first: ticksOf(pid), last: null });
    this.sample();
    this.timer = setInterval(() => this.sample(), INTERVAL_MS);
    this.timer.unref();
  }

  sample() {
    if (this.serverPid) {
      this.server.last = ticksOf(this.serverPid) ?? this.server.last;
      this.serverSystem.last = ticksOf(this.serverPid, 'system') ?? this.serverSystem.last;
    }
    for (const pid of backendsOf(this.database)) if (!this.backends.has(pid)) this.backends.set(pid, { first: 0, last: null });
    for (const [pid, entry] of this.backends) entry.last = ticksOf(pid) ?? entry.last;
    if (this.extraPid && !this.extra.has(this.extraPid)) this.extra.set(this.extraPid, { first: 0, last: null });
    for (const [pid, entry] of this.extra) entry.last = ticksOf(pid) ?? entry.last;
  }

  /** CPU-milliseconds per unit of work (e.g. per request) and the share of the machine's 100 % × cores. */
  stop(units) {
    this.sample();
    clearInterval(this.timer);
    const wallMs = performance.now() - this.startedAt;
    const self = process.cpuUsage(this.self);
    const machine = machineTicks();
    const sum = (map) =>
      [...map.values()].reduce((total, { first, last }) => total + Math.max(0, (last ?? first ?? 0) - (first ?? 0)), 0);
    const ms = {
      server: this.server.first === null ? null : ((this.server.last ?? this.server.first) - this.server.first) * TICK_MS,
      serverKernel:
        this.serverSystem.first === null
          ? null
          : ((this.serverSystem.last ?? this.serverSystem.first) - this.serverSystem.first) * TICK_MS,
      postgres: sum(this.backends) * TICK_MS,
      pgbench: this.extra.size ? sum(this.extra) * TICK_MS : null,
      loadgen: (self.user + self.system) / 1000,
      machine: machine && this.machine ? (machine.busy - this.machine.busy) * TICK_MS : null,
    };
    const known = (ms.server ?? 0) + ms.postgres + (ms.pgbench ?? 0) + ms.loadgen;
    ms.other = ms.machine === null ? null : Math.max(0, ms.machine - known);
    ms.interrupts = machine && this.machine ? (machine.interrupts - this.machine.interrupts) * TICK_MS : null;
    // The largest consumers outside the benchmark (another test suite, a build...).
    const ours = new Set([process.pid, this.serverPid, ...this.backends.keys(), ...this.extra.keys()]);
    const others = [];
    for (const [pid, { ticks, name }] of allProcesses()) {
      if (ours.has(pid)) continue;
      const delta = (ticks - (this.everyone.get(pid)?.ticks ?? 0)) * TICK_MS;
      if (delta > 0) others.push({ name, ms: delta });
    }
    const byName = new Map();
    for (const { name, ms: value } of others) byName.set(name, (byName.get(name) ?? 0) + value);
    const topOthers = [...byName.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([name, value]) => ({ name, ms: value }));
    const perUnit = Object.fromEntries(
      Object.entries(ms).map(([key, value]) => [key, value === null || !units ? null : value / units]),
    );
    return { wallMs, ms, perUnit, topOthers };
  }
}

module.exports = { CpuSampler, findProcess };
