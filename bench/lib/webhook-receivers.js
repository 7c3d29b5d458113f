// Local webhook receivers for the webhook benchmark and the crash script: real HTTP servers on
// loopback that answer 200 at once and record each delivery (webhook-id, arrival time, the
// event's created_at and the request's Idempotency-Key), verifying the Standard Webhooks
// signature with the official `standardwebhooks` library on a sample (every request when
// `verifyEvery` is 1). A "dead" receiver accepts the TCP connection and never answers.
const { createServer } = require('node:http');
const { createServer: createTcpServer } = require('node:net');
const { Webhook } = require('standardwebhooks');

/** Wall-clock milliseconds with sub-millisecond precision (comparable across processes on one machine). */
const nowMs = () => performance.timeOrigin + performance.now();

class WebhookReceiver {
  /** onDelivery({ receiver, id, at, createdAt, idempotencyKey, type, body }) is called for every request. */
  constructor({ index = 0, verifyEvery = 50, onDelivery = () => undefined } = {}) {
    this.index = index;
    this.verifyEvery = verifyEvery;
    this.onDelivery = onDelivery;
    this.secret = null;
    this.requests = 0;
    this.verified = 0;
    this.verifyFailures = [];
    this.sockets = new Set();
  }

  async start() {
    this.server = createServer((request, response) => {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        const at = nowMs();
        const body = Buffer.concat(chunks).toString('utf8');
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        this.requests += 1;
        if (this.secret && (this.requests - 1) % this.verifyEvery === 0) this.verify(body, request.headers);
        let event;
        try {
          event = JSON.parse(body);
        } catch {
          event = {};
        }
        this.onDelivery({
          receiver: this,
          id: request.headers['webhook-id'],
          at,
          createdAt: Date.parse(event.created_at),
          idempotencyKey: event.request?.idempotency_key ?? null,
          type: event.type,
          body,
        });
      });
    });
    this.server.keepAliveTimeout = 1_000;
    this.track(this.server);
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = this.server.address().port;
    return this;
  }

  verify(body, headers) {
    try {
      new Webhook(this.secret).verify(body, {
        'webhook-id': headers['webhook-id'],
        'webhook-timestamp': headers['webhook-timestamp'],
        'webhook-signature': headers['webhook-signature'],
      });
      this.verified += 1;
    } catch (error) {
      this.verifyFailures.push(`${headers['webhook-id']}: ${error.message}`);
    }
  }

  url(path = '/hook') {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  track(server) {
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async close() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Accepts connections and never answers: every attempt runs into the sender's timeout. */
class DeadReceiver extends WebhookReceiver {
  async start() {
    this.server = createTcpServer((socket) => {
      this.requests += 1;
      socket.on('error', () => undefined);
    });
    this.track(this.server);
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = this.server.address().port;
    return this;
  }
}

module.exports = { WebhookReceiver, DeadReceiver, nowMs };
