// A TCP proxy in front of PostgreSQL that reads the frontend protocol and counts, per
// connection and in total, round trips (Query + Sync messages) and statements (Query +
// Execute), and remembers the SQL text of each. A probe only: it adds latency, so no
// throughput figure is ever taken through it.
const { createServer, connect } = require('node:net');

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

async function startRoundTripProxy(targetUrl) {
  const target = new URL(targetUrl);
  const counters = { roundTrips: 0, statements: 0, log: [] };
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    let buffer = Buffer.alloc(0);
    let started = false;
    let lastParsed = '';
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST && code !== CANCEL_REQUEST) started = true;
          continue;
        }
        if (buffer.length < 5) break;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const body = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'Q') {
          counters.roundTrips += 1;
          counters.statements += 1;
          counters.log.push(body.toString('utf8', 0, body.indexOf(0)).replace(/\s+/g, ' ').trim(), '— sync');
        } else if (type === 'P') {
          const nameEnd = body.indexOf(0);
          lastParsed = body
            .toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1))
            .replace(/\s+/g, ' ')
            .trim();
        } else if (type === 'E') {
          counters.statements += 1;
          counters.log.push(lastParsed);
        } else if (type === 'S') {
          counters.roundTrips += 1;
          // Marks where a round trip ends, so that a request's log shows what travelled together.
          counters.log.push('— sync');
        }
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(server.address().port);
  return {
    url: proxied.toString(),
    counters,
    reset: () => {
      counters.roundTrips = 0;
      counters.statements = 0;
      counters.log = [];
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

module.exports = { startRoundTripProxy };
