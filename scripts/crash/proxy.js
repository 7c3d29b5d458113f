'use strict';
// A TCP proxy between the app and PostgreSQL that can cut the connections at a COMMIT.
//
// Modes:
//   pass          forward everything
//   beforeCommit  the next COMMIT a client sends is not forwarded: every connection is cut instead
//                 (the database never commits it; the app never hears back)
//   afterCommit   the next COMMIT is forwarded, and the server's CommandComplete for it is dropped
//                 and every connection cut (the database committed; the app never hears back)
// An armed mode fires once, then the proxy is back to pass (and keeps accepting connections).
//
// PostgreSQL wire protocol: after the untyped startup message, every message is a type byte and a
// big-endian int32 length (which counts itself). A simple query ('Q') is the SQL text; an
// extended-protocol Parse ('P') is a statement name then the SQL text, both NUL-terminated.
const net = require('node:net');

const COMMIT = /^\s*(COMMIT|END)\b/i;

class PgProxy {
  constructor(targetPort) {
    this.targetPort = targetPort;
    this.mode = 'pass';
    this.connections = new Set();
    this.fired = null;
    this.server = net.createServer((client) => this.accept(client));
  }

  listen() {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve(this.server.address().port)));
  }

  /** Arms a cut mode; resolves with what was cut once it fired. */
  arm(mode) {
    this.mode = mode;
    return new Promise((resolve) => (this.fired = resolve));
  }

  disarm() {
    this.mode = 'pass';
    this.fired = null;
  }

  cutAll(what) {
    this.mode = 'pass';
    for (const connection of this.connections) connection.cut();
    const fired = this.fired;
    this.fired = null;
    if (fired) fired(what);
  }

  close() {
    for (const connection of this.connections) connection.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  accept(client) {
    const server = net.connect(this.targetPort, '127.0.0.1');
    const connection = {
      commitSent: false,
      cut: () => {
        client.destroy();
        server.destroy();
        this.connections.delete(connection);
      },
    };
    this.connections.add(connection);
    client.on('error', () => connection.cut());
    server.on('error', () => connection.cut());
    client.on('close', () => connection.cut());
    server.on('close', () => connection.cut());

    const fromClient = new MessageReader(true);
    client.on('data', (chunk) => {
      for (const message of fromClient.push(chunk)) {
        if (this.mode !== 'pass' && isCommit(message)) {
          if (this.mode === 'beforeCommit') return this.cutAll('before COMMIT');
          connection.commitSent = true;
        }
        server.write(message.raw);
      }
    });
    const fromServer = new MessageReader(false);
    server.on('data', (chunk) => {
      for (const message of fromServer.push(chunk)) {
        if (connection.commitSent && message.type === 'C') {
          const tag = message.body.toString('utf8', 0, message.body.length - 1);
          if (tag === 'COMMIT' && this.mode === 'afterCommit') return this.cutAll('after COMMIT');
          connection.commitSent = false;
        }
        client.write(message.raw);
      }
    });
  }
}

function isCommit(message) {
  if (message.type === 'Q') return COMMIT.test(message.body.toString('utf8', 0, message.body.length - 1));
  if (message.type === 'P') {
    const nameEnd = message.body.indexOf(0);
    const sqlEnd = message.body.indexOf(0, nameEnd + 1);
    return COMMIT.test(message.body.toString('utf8', nameEnd + 1, sqlEnd));
  }
  return false;
}

/** Splits a byte stream into whole protocol messages ({type, body, raw}); the first may be untyped. */
class MessageReader {
  constructor(startsUntyped) {
    this.untyped = startsUntyped;
    this.buffer = Buffer.alloc(0);
  }

  push(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const messages = [];
    for (;;) {
      const header = this.untyped ? 4 : 5;
      if (this.buffer.length < header) break;
      const length = this.buffer.readInt32BE(header - 4);
      const total = header - 4 + length;
      if (this.buffer.length < total) break;
      const raw = this.buffer.subarray(0, total);
      messages.push({ type: this.untyped ? null : String.fromCharCode(raw[0]), body: raw.subarray(header), raw });
      this.buffer = this.buffer.subarray(total);
      this.untyped = false;
    }
    return messages;
  }
}

module.exports = { PgProxy };
