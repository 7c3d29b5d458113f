// autocannon with one request built per call (a fresh path, body and Idempotency-Key each time).
const autocannon = require('autocannon');

/** build() answers { path, body, key }; resolves { rps, ok, p50, p99, non2xx, errors, statusCodes, seconds }. */
function cannon({ base, auth, connections = 16, durationS, build }) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections,
        timeout: 10,
        duration: durationS,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              const { path, body, key } = build();
              const headers = { authorization: auth, 'content-type': 'application/json', 'idempotency-key': key };
              return { ...req, method: 'POST', path, headers, body };
            },
          },
        ],
      },
      (error, result) => {
        clearTimeout(guard);
        if (error) reject(error);
        else resolve(summarize(result));
      },
    );
    const guard = setTimeout(() => instance.stop(), (durationS + 30) * 1000);
  });
}

function summarize(result) {
  const seconds = result.duration > 1000 ? result.duration / 1000 : result.duration;
  return {
    rps: result['2xx'] / seconds,
    ok: result['2xx'],
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: result.statusCodeStats,
    seconds,
  };
}

module.exports = { cannon };
