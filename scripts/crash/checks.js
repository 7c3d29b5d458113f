'use strict';
// What must hold after every fault, once the server answers again.
const { errorCode, isFinal, json } = require('./load');
const { sleep } = require('./cluster');
const loadSupport = require('./test-support');

const { conservationViolations } = loadSupport('conservation-ledger.ts');

/** How long a key may answer 409 IDEMPOTENCY_KEY_IN_USE after the restart before it counts as stuck. */
const KEY_STUCK_MS = Number(process.env.CRASH_KEY_STUCK_MS ?? 30_000);

/**
 * Replays one logged write with the same key and body. An answered write must replay its answer
 * (same status and bytes, `Idempotent-Replayed: true`; a transfer's success replays as 409
 * IDEMPOTENCY_KEY_ALREADY_PROCESSED naming the same transfer). An unanswered one gets its final
 * answer now (it happened before the fault, or it runs now), and a second replay must repeat it.
 */
async function replay(api, entry, stats, violations) {
  const first = await replayUntilFinal(api, entry, violations);
  if (!first) return;
  stats.replays += 1;
  if (isFinal(entry.first)) {
    const problem = replayProblem(entry, entry.first, first);
    if (problem) violations.push(`${describe(entry)}: answered ${entry.first.status}, replay ${problem}`);
    entry.final = entry.first;
    return;
  }
  // A transfer that completed before the fault replays as 409 IDEMPOTENCY_KEY_ALREADY_PROCESSED naming it.
  const transferId =
    entry.kind === 'transfer' && errorCode(first) === 'IDEMPOTENCY_KEY_ALREADY_PROCESSED'
      ? json(first).error.details?.transfer_id
      : undefined;
  if (first.replayed || transferId) stats.doneBeforeFault += 1;
  else stats.doneByReplay += 1;
  entry.final = transferId ? { status: 201, text: JSON.stringify({ transfer_id: transferId }), replayed: true } : first;
  const second = await replayUntilFinal(api, entry, violations);
  if (!second) return;
  stats.replays += 1;
  const problem = replayProblem(entry, entry.final, second);
  if (problem) violations.push(`${describe(entry)}: unanswered, then ${first.status}; the next replay ${problem}`);
}

async function replayUntilFinal(api, entry, violations) {
  const deadline = Date.now() + KEY_STUCK_MS;
  for (;;) {
    const outcome = await api.send('POST', entry.path, entry.body, entry.key);
    if (isFinal(outcome)) return outcome;
    if (Date.now() > deadline) {
      violations.push(
        `${describe(entry)}: key stuck, replays answer ${outcome.status ?? outcome.error} ${errorCode(outcome) ?? ''} after ${KEY_STUCK_MS / 1000} s`,
      );
      return undefined;
    }
    await sleep(200);
  }
}

function replayProblem(entry, answer, again) {
  if (entry.kind === 'transfer' && answer.status < 300) {
    const details = json(again)?.error?.details;
    if (
      again.status === 409 &&
      errorCode(again) === 'IDEMPOTENCY_KEY_ALREADY_PROCESSED' &&
      details?.transfer_id === json(answer).transfer_id
    )
      return undefined;
    return `answered ${again.status} ${again.text.slice(0, 200)} instead of 409 IDEMPOTENCY_KEY_ALREADY_PROCESSED naming it`;
  }
  if (again.status !== answer.status) return `answered ${again.status} ${again.text.slice(0, 200)}`;
  if (again.text !== answer.text) return `answered other bytes: ${again.text.slice(0, 200)} vs ${answer.text.slice(0, 200)}`;
  if (!again.replayed) return 'ran again (no Idempotent-Replayed)';
  return undefined;
}

function describe(entry) {
  return `cycle ${entry.cycle} client ${entry.client} ${entry.kind} ${entry.key} POST ${entry.path}`;
}

/**
 * Every write's effect, found in the database by the key it carries: an acknowledged write is
 * present exactly once and whole (the row its answer names, in the state it answered); a refused
 * one left nothing.
 */
async function effectViolations(db, entries) {
  const violations = [];
  const keys = entries.map((entry) => entry.key);
  const rows = async (sql) => {
    const found = new Map();
    for (const row of (await db.query(sql, [keys])).rows) found.set(row.key, [...(found.get(row.key) ?? []), row]);
    return found;
  };
  const lines = await rows(
    `SELECT reason AS key, id, amount::text FROM wallet_transactions WHERE reason = ANY ($1) AND transfer_id IS NULL`,
  );
  const holds = await rows(`SELECT reason AS key, id, status FROM wallet_holds WHERE reason = ANY ($1)`);
  const transfers = await rows(`SELECT reason AS key, id FROM wallet_transfers WHERE reason = ANY ($1)`);
  const changes = await rows(
    `SELECT release_note AS key, id, status, result_version_id FROM changes WHERE release_note = ANY ($1)`,
  );
  const holdIds = entries.filter((entry) => entry.holdId).map((entry) => entry.holdId);
  const holdStates = new Map(
    (await db.query(`SELECT id, status, capture_transaction_id FROM wallet_holds WHERE id = ANY ($1)`, [holdIds])).rows.map(
      (row) => [row.id, row],
    ),
  );
  for (const entry of entries) {
    if (!entry.final) continue;
    const ok = entry.final.status < 300;
    const body = json(entry.final);
    const where = `${describe(entry)} (${entry.final.status})`;
    const expectOne = (found, id) => {
      const list = found.get(entry.key) ?? [];
      if (!ok && list.length > 0) violations.push(`${where}: refused but left ${list.length} row(s)`);
      if (ok && list.length !== 1) violations.push(`${where}: acknowledged, ${list.length} row(s) carry its key`);
      if (ok && list.length === 1 && id !== undefined && list[0].id !== id)
        violations.push(`${where}: answered ${id}, stored ${list[0].id}`);
      return list[0];
    };
    switch (entry.kind) {
      case 'credit':
      case 'debit': {
        const line = expectOne(lines, body?.id);
        if (ok && line && Number(line.amount) !== Number(entry.body.amount) * (entry.kind === 'debit' ? -1 : 1))
          violations.push(`${where}: ledger line of ${line.amount}`);
        break;
      }
      case 'hold':
        expectOne(holds, body?.id);
        break;
      case 'transfer':
        expectOne(transfers, body?.transfer_id);
        break;
      case 'plan_publish':
      case 'product_publish': {
        const change = expectOne(changes, body?.id);
        if (ok && change && (change.status !== body.status || change.status !== 'applied' || !change.result_version_id))
          violations.push(
            `${where}: change stored ${change.status} (result ${change.result_version_id}), answered ${body.status}`,
          );
        break;
      }
      case 'capture':
      case 'release': {
        const hold = holdStates.get(entry.holdId);
        const want = entry.kind === 'capture' ? 'captured' : 'released';
        if (ok && hold?.status !== want) violations.push(`${where}: answered ${want}, hold is ${hold?.status}`);
        if (ok && entry.kind === 'capture' && hold?.capture_transaction_id !== body?.capture_transaction_id)
          violations.push(
            `${where}: answered capture line ${body?.capture_transaction_id}, hold names ${hold?.capture_transaction_id}`,
          );
        break;
      }
    }
  }
  return violations;
}

/**
 * The books and the state machines: R1 conservation over every wallet; no hold pending past its
 * expiry, no change pending past its time, no cascade run or task left unfinished, no outbox
 * event undelivered, each older than `stuckSeconds`; every product and plan with exactly one
 * head version, the one it names, and at most one draft, the one it names.
 */
async function stateViolations(db, organizationId, walletIds, stuckSeconds) {
  const adapter = { query: async (sql, params) => (await db.query(sql, params)).rows };
  const violations = (await conservationViolations(adapter, organizationId, walletIds)).map((v) => `conservation: ${v}`);
  const stuck = [
    [
      'hold pending past expires_at',
      `SELECT id FROM wallet_holds WHERE status = 'pending' AND expires_at < now() - $1 * interval '1 second'`,
    ],
    [
      'change pending past scheduled_for',
      `SELECT id FROM changes WHERE status = 'pending' AND scheduled_for < now() - $1 * interval '1 second'`,
    ],
    [
      // A run's stored status stays 'running' once expanded; its tasks say when it is done (as GET /v1/cascade_runs/{id}).
      'cascade run not expanded',
      `SELECT id, status FROM cascade_runs WHERE status = 'pending' AND effective_at < now() - $1 * interval '1 second'`,
    ],
    [
      'cascade task pending',
      `SELECT run_id, subject_kind, subject_id, attempts FROM cascade_tasks WHERE status = 'pending' AND updated_at < now() - $1 * interval '1 second'`,
    ],
    [
      'outbox event undelivered',
      `SELECT id, event_type, attempts, last_error FROM outbox_events WHERE dispatched_at IS NULL AND occurred_at < now() - $1 * interval '1 second'`,
    ],
  ];
  for (const [what, sql] of stuck) {
    for (const row of (await db.query(sql, [stuckSeconds])).rows) violations.push(`stuck: ${what} ${JSON.stringify(row)}`);
  }
  for (const [subject, versions] of [
    ['products', 'product_versions'],
    ['plans', 'plan_versions'],
  ]) {
    const key = subject === 'products' ? 'product_id' : 'plan_id';
    const { rows } = await db.query(
      `SELECT s.id, s.head_version_id, s.draft_version_id,
              array_remove(array_agg(v.id) FILTER (WHERE v.status = 'published'), NULL) AS heads,
              array_remove(array_agg(v.id) FILTER (WHERE v.status = 'draft'), NULL) AS drafts
         FROM ${subject} s LEFT JOIN ${versions} v
           ON v.organization_id = s.organization_id AND v.workspace_id = s.workspace_id AND v.${key} = s.id
        WHERE s.organization_id = $1
        GROUP BY s.id, s.head_version_id, s.draft_version_id`,
      [organizationId],
    );
    for (const row of rows) {
      const heads = row.heads ?? [];
      const drafts = row.drafts ?? [];
      if (row.head_version_id !== null && (heads.length !== 1 || heads[0] !== row.head_version_id))
        violations.push(
          `version line: ${subject} ${row.id} names head ${row.head_version_id}, published versions ${JSON.stringify(heads)}`,
        );
      if (drafts.length > 1 || (drafts[0] ?? null) !== row.draft_version_id)
        violations.push(
          `version line: ${subject} ${row.id} names draft ${row.draft_version_id}, drafts ${JSON.stringify(drafts)}`,
        );
    }
  }
  return violations;
}

module.exports = { effectViolations, replay, stateViolations };
