// HTTP for the benchmarks: one keyed request at a time (setup) and autocannon load whose requests
// are built per call (a random wallet, a unique Idempotency-Key).
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

function request(base, auth, method, path, body, key) {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = { authorization: auth };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (method === 'POST') headers['idempotency-key'] = key ?? `bench-${randomBytes(12).toString('hex')}`;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent, timeout: 30_000 }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode,
          headers: res.headers,
          text,
          json: () => JSON.parse(text),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

async function expectOk(promise, what) {
  const response = await promise;
  if (response.status < 200 || response.status >= 300)
    throw new Error(`${what}: ${response.status} ${response.text.slice(0, 500)}`);
  return response;
}

/** Runs `count` calls of `fn(i)` with at most `parallel` in flight. */
async function inParallel(count, parallel, fn) {
  let next = 0;
  const results = new Array(count);
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await fn(i);
      }
    }),
  );
  return results;
}

/** `call(method, path, body?, key?)` by fetch: the parsed JSON answer, or an error naming a non-2xx status. */
function jsonCaller(base, auth) {
  return async (method, path, body, key) => {
    const headers = { authorization: auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = key ?? randomBytes(12).toString('hex');
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
}

let keySequence = 0;
const keyPrefix = `ac-${process.pid}-${randomBytes(3).toString('hex')}`;
const nextKey = () => `${keyPrefix}-${(keySequence += 1)}`;

/** autocannon with one request built per call by `build()` → { path, body, key? }; 16 connections unless told. */
function cannon({ base, auth, connections = 16, durationS, amount, method = 'POST', build }) {
  return new Promise((resolve, reject) => {
    let guard = null;
    const options = {
      url: base,
      connections,
      timeout: 10,
      requests: [
        {
          method,
          setupRequest: (req) => {
            const { path, body, key } = build();
            const headers = { authorization: auth };
            if (method === 'POST') {
              headers['content-type'] = 'application/json';
              headers['idempotency-key'] = key ?? nextKey();
            }
            return { ...req, method, path, headers, body };
          },
        },
      ],
    };
    if (amount !== undefined) options.amount = amount;
    else options.duration = durationS;
    const instance = autocannon(options, (error, result) => {
      if (guard) clearTimeout(guard);
      if (error) reject(error);
      else resolve(summarize(result));
    });
    // Bounded even when given an amount rather than a duration.
    guard = setTimeout(() => instance.stop(), ((durationS ?? 120) + 30) * 1000);
  });
}

function summarize(result) {
  const ok = result['2xx'];
  const seconds = result.duration > 1000 ? result.duration / 1000 : result.duration;
  return {
    rps: ok / seconds,
    ok,
    p50: result.latency.p50,
    p99: result.latency.p99,
    avg: result.latency.average,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: result.statusCodeStats,
    seconds,
  };
}

module.exports = { agent, request, expectOk, inParallel, cannon, jsonCaller };
