'use strict';
// Webhook deliveries under the faults: a real local receiver (bench/lib/webhook-receivers.js) that
// verifies every signature with `standardwebhooks` and deduplicates by `webhook-id`, as the
// integrator's guide asks, behind an endpoint subscribed to every event type of the load's
// workspace, created before the fixtures. At the end, once every retry had its chance:
//   - no committed event is lost: every event of the workspace written after the endpoint (its
//     `sequence` is above the one the workspace had then) reached the receiver;
//   - none was sent for a rolled-back change: every webhook-id received is an event in the table;
//   - each is seen once after deduplication, and a repeated webhook-id always carried the same
//     bytes (the same event, not another one under its id).
const { createHash } = require('node:crypto');
const { WebhookReceiver } = require('../../bench/lib/webhook-receivers');
const { sleep } = require('./cluster');

class DeliveryCheck {
  constructor() {
    /** webhook-id → { digest, type, count } */
    this.received = new Map();
    this.requests = 0;
    this.processed = 0;
    this.mismatches = [];
  }

  /** Starts the receiver and subscribes it to everything (before the load, so every event counts). */
  async start(api, db) {
    this.receiver = await new WebhookReceiver({ verifyEvery: 1, onDelivery: (delivery) => this.deliver(delivery) }).start();
    const endpoint = await api.must('POST', '/v1/webhook_endpoints', { url: this.receiver.url(), enabled_events: ['*'] }, 201);
    this.receiver.secret = endpoint.secret;
    const [row] = (
      await db.query(
        `SELECT e.workspace_id, coalesce(max(ev.sequence), 0)::text AS sequence
           FROM webhook_endpoints e
           LEFT JOIN events ev ON ev.organization_id = e.organization_id AND ev.workspace_id = e.workspace_id
          WHERE e.id = $1 GROUP BY e.workspace_id`,
        [endpoint.id],
      )
    ).rows;
    this.workspaceId = row.workspace_id;
    this.fromSequence = row.sequence;
    return this;
  }

  /** The receiver's processing: a webhook-id already processed is acknowledged and skipped. */
  deliver({ id, body, type }) {
    this.requests += 1;
    const digest = createHash('sha256').update(body).digest('hex');
    const seen = this.received.get(id);
    if (!seen) {
      this.received.set(id, { digest, type, count: 1 });
      this.processed += 1;
      return;
    }
    seen.count += 1;
    if (seen.digest !== digest) this.mismatches.push(`${id} (${type}): a repeat carried other bytes`);
  }

  /** Committed events of the workspace since the endpoint: [{ id, type }]. */
  async committed(db) {
    return (
      await db.query(`SELECT id, type FROM events WHERE workspace_id = $1 AND sequence > $2 ORDER BY sequence`, [
        this.workspaceId,
        this.fromSequence,
      ])
    ).rows;
  }

  /** Waits up to `seconds` for every committed event to arrive, then answers the violations and figures. */
  async settle(db, seconds) {
    const started = Date.now();
    const deadline = started + seconds * 1000;
    let missing;
    let committed;
    for (;;) {
      committed = await this.committed(db);
      missing = committed.filter((event) => !this.received.has(event.id));
      if (missing.length === 0 || Date.now() > deadline) break;
      await sleep(1_000);
    }
    const committedIds = new Set(committed.map((event) => event.id));
    const outside = [...this.received.keys()].filter((id) => !committedIds.has(id));
    // Received, and no event in the table: sent for a change that never committed.
    const stored = outside.length
      ? new Set((await db.query(`SELECT id FROM events WHERE id = ANY ($1::uuid[])`, [outside])).rows.map((row) => row.id))
      : new Set();
    const neverCommitted = outside.filter((id) => !stored.has(id));
    const violations = [
      ...missing.slice(0, 20).map((event) => `webhooks: committed event ${event.id} (${event.type}) never reached the receiver`),
      ...neverCommitted.map((id) => `webhooks: received ${id}, which is no committed event`),
      ...this.mismatches,
      ...this.receiver.verifyFailures.map((failure) => `webhooks: signature refused: ${failure}`),
    ];
    if (missing.length > 20) violations.push(`webhooks: … ${missing.length - 20} more committed events never delivered`);
    const repeats = [...this.received.values()].filter((entry) => entry.count > 1).length;
    return {
      violations,
      summary:
        `${committed.length} events committed, ${this.processed} processed once after dedup by webhook-id ` +
        `(${this.requests} requests, ${repeats} ids repeated), ${missing.length} lost, ${neverCommitted.length} never committed, ` +
        `${this.receiver.verified} signatures verified, ${this.receiver.verifyFailures.length} refused; settled in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    };
  }

  async close() {
    await this.receiver?.close();
  }
}

module.exports = { DeliveryCheck };
