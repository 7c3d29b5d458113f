'use strict';
// The mixed load and its log. Every write is a POST with an Idempotency-Key; the client logs the
// key, the body and the outcome: acknowledged (2xx), refused (a stored 4xx) or unanswered (no
// response, or a 5xx: the outcome is unknown to the client). Each write carries its key in a
// free-text field (`reason`, a change's `release_note`) so its effect can be found and counted in
// the database whatever the idempotency records say.

/** Answers that are final for a key (stored and replayed); anything else leaves the outcome open. */
function isFinal(outcome) {
  if (outcome.status === null || outcome.status >= 500) return false;
  if ([401, 403, 429].includes(outcome.status)) return false;
  return !(outcome.status === 409 && errorCode(outcome) === 'IDEMPOTENCY_KEY_IN_USE');
}

function errorCode(outcome) {
  try {
    return JSON.parse(outcome.text).error?.code;
  } catch {
    return undefined;
  }
}

function json(outcome) {
  try {
    return JSON.parse(outcome.text);
  } catch {
    return undefined;
  }
}

class Api {
  constructor(base, key) {
    this.base = base;
    this.auth = `Bearer ${key}`;
  }

  async send(method, path, body, idempotencyKey) {
    const headers = { authorization: this.auth, 'content-type': 'application/json' };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    try {
      const response = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      return { status: response.status, text, replayed: response.headers.get('idempotent-replayed') === 'true' };
    } catch (error) {
      return { status: null, text: '', error: error.cause?.code ?? error.name };
    }
  }

  /** A setup call that must succeed. */
  async must(method, path, body, status) {
    const outcome = await this.send(
      method,
      path,
      body,
      method === 'POST' ? `setup-${Math.random().toString(36).slice(2)}` : undefined,
    );
    if (outcome.status !== status) throw new Error(`${method} ${path} → ${outcome.status} ${outcome.text}`);
    return json(outcome);
  }
}

/**
 * Wallets (shared by every client), and per client one product and one plan holding it with
 * track mode `latest`: a product publish cascades into that plan.
 */
async function createFixtures(api, { clients, wallets }) {
  const walletIds = [];
  for (let i = 0; i < wallets; i += 1) {
    const customer = await api.must('POST', '/v1/customers', { name: `Crash customer ${i}`, currency: 'EUR' }, 201);
    walletIds.push(customer.primary_wallet_id);
    await api.must('POST', `/v1/wallets/${customer.primary_wallet_id}/credit`, { amount: '500.00', reason: 'opening' }, 200);
  }
  const catalog = [];
  for (let i = 0; i < clients; i += 1) {
    const product = await api.must('POST', '/v1/products', { name: `Crash product ${i}`, price_expression: '2' }, 201);
    await publish(api, 'product', product.id, product.draft_version.id);
    const plan = await api.must('POST', '/v1/plans', { name: `Crash plan ${i}` }, 201);
    const staged = await api.must('POST', `/v1/plans/${plan.id}/products`, { product_id: product.id }, 201);
    await publish(api, 'plan', plan.id, staged.draft_version.id);
    catalog.push({ productId: product.id, planId: plan.id });
  }
  return { walletIds, catalog };
}

function publish(api, kind, id, stagedVersionId) {
  return api.must(
    'POST',
    '/v1/changes',
    { operation: 'catalog.publish_version', subject_kind: kind, subject_id: id, staged_version_id: stagedVersionId },
    201,
  );
}

const WEIGHTS = [
  ['credit', 18],
  ['debit', 18],
  ['hold', 12],
  ['capture', 8],
  ['release', 6],
  ['transfer', 18],
  ['plan_publish', 8],
  ['product_publish', 8],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);

/** One client: sends writes one after another until `state.running` turns false. */
class Client {
  constructor(index, api, fixtures, random, log) {
    this.index = index;
    this.api = api;
    this.walletIds = fixtures.walletIds;
    this.product = fixtures.catalog[index];
    this.random = random;
    this.log = log;
    /** Holds this client created and saw acknowledged, not yet captured or released by it. */
    this.holds = [];
    this.sequence = 0;
  }

  async run(state, cycle) {
    while (state.running) await this.step(cycle);
  }

  pick() {
    let roll = this.random() * TOTAL_WEIGHT;
    for (const [kind, weight] of WEIGHTS) {
      roll -= weight;
      if (roll < 0) return kind;
    }
    return WEIGHTS[0][0];
  }

  amount(max) {
    return (1 + Math.floor(this.random() * max * 100) / 100).toFixed(2);
  }

  wallet() {
    return this.walletIds[Math.floor(this.random() * this.walletIds.length)];
  }

  async step(cycle) {
    const kind = this.pick();
    const key = `crash-${this.log.seed}-${this.index}-${(this.sequence += 1)}`;
    const reason = key;
    switch (kind) {
      case 'credit':
      case 'debit':
        return this.write(cycle, kind, key, `/v1/wallets/${this.wallet()}/${kind}`, { amount: this.amount(40), reason });
      case 'hold': {
        // Some holds expire within seconds, so expiry runs across the faults too.
        const expires = this.random() < 0.3 ? new Date(Date.now() + 1_000 + this.random() * 4_000).toISOString() : undefined;
        const walletId = this.wallet();
        const entry = await this.write(cycle, kind, key, `/v1/wallets/${walletId}/holds`, {
          amount: this.amount(20),
          reason,
          ...(expires ? { expires_at: expires } : {}),
        });
        if (entry.first.status === 201) this.holds.push({ walletId, holdId: json(entry.first).id });
        return entry;
      }
      case 'capture':
      case 'release': {
        const hold = this.holds.shift();
        if (!hold) return this.write(cycle, 'credit', key, `/v1/wallets/${this.wallet()}/credit`, { amount: '1.00', reason });
        const body = kind === 'capture' && this.random() < 0.5 ? { amount: '0.50' } : {};
        const entry = await this.write(cycle, kind, key, `/v1/wallets/${hold.walletId}/holds/${hold.holdId}/${kind}`, body);
        entry.holdId = hold.holdId;
        return entry;
      }
      case 'transfer': {
        const source = this.wallet();
        let target = this.wallet();
        if (target === source) target = this.walletIds[(this.walletIds.indexOf(source) + 1) % this.walletIds.length];
        return this.write(cycle, kind, key, `/v1/wallets/${source}/transfer`, {
          amount: { value: this.amount(30), currency: 'EUR' },
          target_wallet_id: target,
          reason,
        });
      }
      case 'plan_publish':
      case 'product_publish': {
        // Stage a draft (PATCH: no key, naturally idempotent), then publish it through a change.
        const { planId, productId } = this.product;
        const staged =
          kind === 'plan_publish'
            ? await this.api.send('PATCH', `/v1/plans/${planId}/products/${productId}`, {
                max_quantity: 1 + Math.floor(this.random() * 1000),
              })
            : await this.api.send('PATCH', `/v1/products/${productId}`, {
                price_expression: String(1 + Math.floor(this.random() * 99)),
              });
        const draft = json(staged)?.draft_version?.id;
        if (staged.status !== 200 || !draft) {
          this.log.stagingFailures += 1;
          return undefined;
        }
        return this.write(cycle, kind, key, '/v1/changes', {
          operation: 'catalog.publish_version',
          subject_kind: kind === 'plan_publish' ? 'plan' : 'product',
          subject_id: kind === 'plan_publish' ? planId : productId,
          staged_version_id: draft,
          release_note: key,
        });
      }
    }
    return undefined;
  }

  async write(cycle, kind, key, path, body) {
    const entry = { cycle, client: this.index, kind, key, path, body, first: undefined, final: undefined };
    this.log.entries.push(entry);
    entry.first = await this.api.send('POST', path, body, key);
    this.log.sent += 1;
    if (entry.first.status !== null && entry.first.status < 300) this.log.acknowledged += 1;
    else if (isFinal(entry.first)) this.log.refused += 1;
    else this.log.unanswered += 1;
    if (entry.first.status !== null && entry.first.status >= 500) {
      const name = `${entry.first.status} ${errorCode(entry.first) ?? ''}`.trim();
      this.log.serverErrors[name] = (this.log.serverErrors[name] ?? 0) + 1;
    }
    return entry;
  }
}

module.exports = { Api, Client, createFixtures, errorCode, isFinal, json };
