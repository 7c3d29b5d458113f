// P9: PDF preview of the system invoice template (a 3-page invoice: the sample with 45 line items)
// against headless Chromium printing the same document's HTML render, in the same run; identical
// bytes on repeat; a preview served from the cache over HTTP; and the heaviest document a preview
// may render (40 blocks of prose, near the page limit), each one distinct, with the longest wait
// of /health/live asked every 10 ms meanwhile (the server's event-loop stall, seen from outside).
//
//   sh scripts/node24.sh bench/documents.js
//   BENCH_DURATION_S=5 sh scripts/node24.sh bench/documents.js
//
// The renderer is measured in process (what the preview route runs after the cache misses); the
// reference is one warm Chromium (started once, driven over the DevTools protocol) loading the
// HTML render and printing it to PDF, so neither side pays a process start per document. Without
// a `chromium` binary on PATH or in BENCH_CHROMIUM (Debian: apt-get install chromium; BENCH_CHROMIUM=none skips it)
// the comparison is skipped with a line saying so.
const { spawn, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

const DIST = join(__dirname, '..', 'dist', 'apps', 'api', 'libs', 'documents', 'src');
const { DocumentRenderer } = require(join(DIST, 'infrastructure', 'rendering', 'document-renderer'));
const { SYSTEM_TEMPLATES, SYSTEM_TEMPLATE_IDS } = require(join(DIST, 'domain', 'system-templates'));

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LINE_ITEMS = 45;
const PORT = Number(process.env.BENCH_PORT ?? 3951);
const log = (message) => console.log(`[documents ${new Date().toISOString().slice(11, 19)}] ${message}`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const sha = (buffer) => createHash('sha256').update(buffer).digest('hex');

/** Runs `once` back to back for `seconds`; returns documents per second and latencies in ms. */
async function measure(seconds, once) {
  const latencies = [];
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  while (performance.now() < end) {
    const t0 = performance.now();
    await once();
    latencies.push(performance.now() - t0);
  }
  return {
    perSecond: latencies.length / ((performance.now() - start) / 1000),
    p99: percentile(latencies, 99),
    count: latencies.length,
  };
}

/** Prose filling a free_text block's 4,000 characters; `seed` makes each document distinct (no cache hit). */
const prose = (seed) =>
  `${seed} Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. `.repeat(60).slice(0, 4000);

/** Worst allowed renders over HTTP, one after another, while /health/live is asked every 10 ms. */
async function worstAllowedRenders(server, auth, count) {
  const invoice = SYSTEM_TEMPLATES.find((template) => template.id === SYSTEM_TEMPLATE_IDS.invoice);
  const url = `${server.base}/v1/document_templates/${SYSTEM_TEMPLATE_IDS.invoice}/preview`;
  const renders = [];
  let longestLive = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const t0 = performance.now();
      await fetch(`${server.base}/health/live`);
      longestLive = Math.max(longestLive, performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  let pages = 0;
  for (let i = 0; i < count; i += 1) {
    const template_json = {
      ...invoice.document,
      blocks: Array.from({ length: 40 }, (_, block) => ({ type: 'free_text', text: prose(`${i}.${block}`), align: 'left' })),
    };
    const t0 = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ template_json }),
    });
    const pdf = Buffer.from(await response.arrayBuffer());
    renders.push(performance.now() - t0);
    if (response.status !== 200)
      throw new Error(`worst allowed render answered ${response.status}: ${pdf.toString().slice(0, 200)}`);
    pages = (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
  }
  probing = false;
  await probe;
  return { median: median(renders), longestLive, pages };
}

/** BENCH_CHROMIUM names the binary, or `none` to skip the comparison; otherwise it is looked up on PATH. */
function chromiumBinary() {
  if (process.env.BENCH_CHROMIUM === 'none') return null;
  if (process.env.BENCH_CHROMIUM) return process.env.BENCH_CHROMIUM;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return null;
}

/** One headless Chromium, driven over the DevTools protocol (Node's global WebSocket). */
async function startChromium(binary) {
  const profile = mkdtempSync(join(tmpdir(), 'bench-chromium-'));
  const child = spawn(
    binary,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const endpoint = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start:\n${text}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`chromium exited with ${code}:\n${text}`)));
  });
  const socket = new WebSocket(endpoint);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 1;
  const pending = new Map();
  const waiters = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(message.error.message));
      else resolve(message.result);
    } else if (message.method) {
      for (const waiter of [...waiters]) if (waiter.matches(message)) waiter.resolve(message);
    }
  };
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    });
  const once = (method, sessionId) =>
    new Promise((resolve) => {
      const waiter = {
        matches: (message) => message.method === method && message.sessionId === sessionId,
        resolve: (message) => {
          waiters.splice(waiters.indexOf(waiter), 1);
          resolve(message);
        },
      };
      waiters.push(waiter);
    });
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  await send('Page.enable', {}, sessionId);
  return {
    /** Loads the page and prints it: what a browser-based renderer does per document. */
    async print(url) {
      const loaded = once('Page.loadEventFired', sessionId);
      await send('Page.navigate', { url }, sessionId);
      await loaded;
      const { data } = await send('Page.printToPDF', { preferCSSPageSize: true, printBackground: true }, sessionId);
      return Buffer.from(data, 'base64');
    },
    async stop() {
      socket.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function main() {
  const invoice = SYSTEM_TEMPLATES.find((template) => template.id === SYSTEM_TEMPLATE_IDS.invoice);
  const input = { document: invoice.document, kind: 'printed', anchorKey: null, documentType: 'invoice', lineCount: LINE_ITEMS };
  const renderer = new DocumentRenderer();
  const pages = renderer.layout(input).pages.length;
  const first = await renderer.render(input, 'pdf');
  const again = await new DocumentRenderer().render(input, 'pdf');
  const identical = first.equals(again);
  log(`system invoice with ${LINE_ITEMS} line items: ${pages} pages, ${first.length} bytes, identical on repeat: ${identical}`);
  for (let i = 0; i < 20; i += 1) await renderer.render(input, 'pdf');

  const binary = chromiumBinary();
  const chromium = binary ? await startChromium(binary) : null;
  const workdir = mkdtempSync(join(tmpdir(), 'bench-documents-'));
  const htmlFile = join(workdir, 'invoice.html');
  writeFileSync(htmlFile, renderer.html(input));
  if (!chromium)
    log('chromium not found (PATH, BENCH_CHROMIUM): the Chromium comparison is skipped (apt-get install chromium to run it)');
  else for (let i = 0; i < 5; i += 1) await chromium.print(`file://${htmlFile}`);

  const ours = [];
  const theirs = [];
  try {
    for (let run = 1; run <= RUNS; run += 1) {
      ours.push(await measure(DURATION_S, () => renderer.render(input, 'pdf')));
      log(`run ${run}: pdfkit ${ours.at(-1).perSecond.toFixed(1)}/s, p99 ${ours.at(-1).p99.toFixed(1)} ms`);
      if (chromium) {
        theirs.push(await measure(DURATION_S, () => chromium.print(`file://${htmlFile}`)));
        log(`run ${run}: chromium ${theirs.at(-1).perSecond.toFixed(1)}/s, p99 ${theirs.at(-1).p99.toFixed(1)} ms`);
      }
    }
  } finally {
    await chromium?.stop();
    rmSync(workdir, { recursive: true, force: true });
  }

  // A cache hit over HTTP: the whole stack (auth, validation, rate limit, cache) answering a repeat.
  const database = await scratchDatabase('documents');
  const server = await startServer({ databaseUrl: database.url, port: PORT, env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '0' } });
  let hit;
  let worst;
  try {
    const auth = `Bearer ${rootKeyFrom(server.output())}`;
    const url = `${server.base}/v1/document_templates/${SYSTEM_TEMPLATE_IDS.invoice}/preview`;
    const request = { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: '{}' };
    const miss = await fetch(url, request);
    const missBytes = Buffer.from(await miss.arrayBuffer());
    const repeat = await fetch(url, request);
    const repeatBytes = Buffer.from(await repeat.arrayBuffer());
    log(
      `HTTP preview: ${miss.status} ${miss.headers.get('preview-cache')}, then ${repeat.headers.get('preview-cache')}; same bytes: ${sha(missBytes) === sha(repeatBytes)}`,
    );
    const result = await autocannon({ url, ...request, connections: 4, duration: Math.min(DURATION_S, 10) });
    hit = {
      perSecond: result.requests.average,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      same: sha(missBytes) === sha(repeatBytes),
    };
    worst = await worstAllowedRenders(server, auth, 10);
    log(
      `worst allowed render: ${worst.pages} pages, median ${worst.median.toFixed(0)} ms; /health/live waited at most ${worst.longestLive.toFixed(1)} ms`,
    );
  } finally {
    await server.stop();
    await database.drop();
  }

  const oursRate = median(ours.map((entry) => entry.perSecond));
  const oursP99 = median(ours.map((entry) => entry.p99));
  const theirsRate = theirs.length ? median(theirs.map((entry) => entry.perSecond)) : null;
  const theirsP99 = theirs.length ? median(theirs.map((entry) => entry.p99)) : null;
  const ratio = theirsRate ? oursRate / theirsRate : null;
  report('documents', [
    {
      figure: `P9 preview renders/s (${pages}-page invoice)`,
      value: oursRate,
      unit: '/s',
      reference: theirsRate ?? undefined,
      ratio,
      bar: '≥ 10 × Chromium',
      pass: ratio === null ? undefined : ratio >= 10,
      score: ratio === null ? undefined : ratio / 10,
    },
    {
      figure: 'P9 preview p99',
      value: oursP99,
      unit: 'ms',
      reference: theirsP99 ?? undefined,
      ratio: theirsP99 ? theirsP99 / oursP99 : null,
    },
    { figure: 'P9 identical bytes on repeat', value: identical ? 'yes' : 'no', bar: 'identical', pass: identical && hit.same },
    { figure: 'P9 cache hit over HTTP, 4 conn.', value: hit.perSecond, unit: '/s', bar: '0 non-2xx', pass: hit.non2xx === 0 },
    { figure: 'P9 cache hit p99', value: hit.p99, unit: 'ms' },
    { figure: `Worst allowed preview (${worst.pages} pages), median`, value: worst.median, unit: 'ms' },
    {
      figure: '/health/live longest wait during worst renders',
      value: worst.longestLive,
      unit: 'ms',
      bar: '≤ 100 ms (P18 stall)',
      pass: worst.longestLive <= 100,
    },
  ]);
  if (!theirsRate)
    console.log('P9 Chromium comparison skipped: no chromium binary (install Debian’s chromium package to measure the ratio).');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
