import { currencyScale, roundHalfEven } from '@app/shared-kernel';
import Big from 'big.js';
import { DataSource } from 'typeorm';
import { ledgerViolations } from './wallet-helpers';

/**
 * R1 over wallets that carry holds and transfers: every property of wallet-helpers'
 * ledgerViolations except its "held = 0" (these wallets hold funds), plus holds and transfers.
 * Returns the violations found, empty when the books balance.
 */
export async function conservationViolations(db: DataSource, organizationId: string, walletIds: string[]): Promise<string[]> {
  const ledger = (await ledgerViolations(db, walletIds)).filter((violation) => !/: held \S+ ≠ 0$/.test(violation));
  return [
    ...ledger,
    ...(await heldViolations(db, walletIds)),
    ...(await holdStateViolations(db, walletIds)),
    ...(await transferLegViolations(db, organizationId, walletIds)),
  ];
}

/** held_balance = Σ amount of the wallet's pending holds. */
async function heldViolations(db: DataSource, walletIds: string[]): Promise<string[]> {
  const rows: Array<{ id: string; held_balance: string; pending: string }> = await db.query(
    `SELECT w.id, w.held_balance::text,
            COALESCE((SELECT sum(h.amount) FROM wallet_holds h
                       WHERE h.organization_id = w.organization_id AND h.workspace_id = w.workspace_id AND h.wallet_id = w.id
                         AND h.status = 'pending'), 0)::text AS pending
       FROM wallets w WHERE w.id = ANY ($1)`,
    [walletIds],
  );
  return rows.flatMap((w) =>
    new Big(w.held_balance).eq(w.pending) ? [] : [`${w.id}: held ${w.held_balance} ≠ Σ pending holds ${w.pending}`],
  );
}

interface HoldRow {
  wallet_id: string;
  id: string;
  amount: string;
  status: string;
  expires_at: Date | null;
  release_reason: string | null;
  captured_amount: string | null;
  capture_transaction_id: string | null;
  captured_at: Date | null;
  released_at: Date | null;
  lines: Array<{ id: string; type: string; amount: string }>;
}

/**
 * Every hold in exactly one state, with the fields of that state and no other:
 *  - pending: no capture and no release fields, no ledger line
 *  - captured: 0 < captured ≤ amount, before expires_at, exactly one `hold_capture` line for
 *    −captured named by capture_transaction_id; released as 'capture_remainder' exactly when partial
 *  - released: 'manual' or 'expired' (then at or after expires_at) with a time, no ledger line
 * and no ledger line names a hold that is not one of these wallets' holds.
 */
async function holdStateViolations(db: DataSource, walletIds: string[]): Promise<string[]> {
  const holds: HoldRow[] = await db.query(
    `WITH lines AS (
       SELECT organization_id, workspace_id, wallet_id, hold_id,
              json_agg(json_build_object('id', id, 'type', type, 'amount', amount::text)) AS lines
         FROM wallet_transactions WHERE wallet_id = ANY ($1) AND hold_id IS NOT NULL
        GROUP BY organization_id, workspace_id, wallet_id, hold_id
     )
     SELECT h.wallet_id, h.id, h.amount::text, h.status, h.expires_at, h.release_reason, h.captured_amount::text,
            h.capture_transaction_id, h.captured_at, h.released_at, COALESCE(l.lines, '[]') AS lines
       FROM wallet_holds h
       LEFT JOIN lines l ON l.organization_id = h.organization_id AND l.workspace_id = h.workspace_id
                        AND l.wallet_id = h.wallet_id AND l.hold_id = h.id
      WHERE h.wallet_id = ANY ($1)`,
    [walletIds],
  );
  const violations: string[] = [];
  for (const h of holds) {
    const where = `${h.wallet_id}: hold ${h.id} (${h.status})`;
    const captureFields = h.captured_amount !== null || h.capture_transaction_id !== null || h.captured_at !== null;
    const releaseFields = h.release_reason !== null || h.released_at !== null;
    if (h.status === 'pending') {
      if (captureFields || releaseFields) violations.push(`${where} carries capture or release fields`);
      if (h.lines.length > 0) violations.push(`${where} has ${h.lines.length} ledger lines`);
    } else if (h.status === 'captured') {
      const captured = new Big(h.captured_amount ?? '0');
      if (!captured.gt(0) || captured.gt(h.amount)) violations.push(`${where}: captured ${h.captured_amount} of ${h.amount}`);
      if (h.capture_transaction_id === null || h.captured_at === null) violations.push(`${where} lacks capture fields`);
      if (h.expires_at && h.captured_at && h.captured_at >= h.expires_at)
        violations.push(`${where}: captured at or after expires_at`);
      const partial = captured.lt(h.amount);
      if (partial !== (h.release_reason === 'capture_remainder') || partial !== (h.released_at !== null))
        violations.push(`${where}: release_reason ${h.release_reason} / released_at ${h.released_at} for captured ${captured}`);
      if (h.lines.length !== 1 || h.lines[0].type !== 'hold_capture')
        violations.push(`${where} has lines ${JSON.stringify(h.lines)}, not one hold_capture line`);
      else {
        if (h.lines[0].id !== h.capture_transaction_id) violations.push(`${where}: capture_transaction_id ≠ its line`);
        if (!new Big(h.lines[0].amount).eq(captured.neg()))
          violations.push(`${where}: line ${h.lines[0].amount} ≠ −captured ${captured}`);
      }
    } else if (h.status === 'released') {
      if (captureFields) violations.push(`${where} carries capture fields`);
      if (h.released_at === null || !['manual', 'expired'].includes(h.release_reason ?? ''))
        violations.push(`${where}: release_reason ${h.release_reason}, released_at ${h.released_at}`);
      if (h.release_reason === 'expired' && (!h.expires_at || (h.released_at && h.released_at < h.expires_at)))
        violations.push(`${where}: released as expired before expires_at ${h.expires_at}`);
      if (h.lines.length > 0) violations.push(`${where} has ${h.lines.length} ledger lines`);
    } else violations.push(`${where}: unknown status`);
  }
  const strays: Array<{ id: string; hold_id: string }> = await db.query(
    `SELECT t.id, t.hold_id FROM wallet_transactions t
      WHERE t.wallet_id = ANY ($1) AND (t.hold_id IS NOT NULL) <> (t.type = 'hold_capture'
            AND EXISTS (SELECT 1 FROM wallet_holds h WHERE h.organization_id = t.organization_id AND h.workspace_id = t.workspace_id
                          AND h.wallet_id = t.wallet_id AND h.id = t.hold_id))`,
    [walletIds],
  );
  for (const line of strays) violations.push(`line ${line.id}: hold_id ${line.hold_id} does not name a hold of its wallet`);
  return violations;
}

interface TransferRow {
  id: string;
  source_wallet_id: string;
  target_wallet_id: string;
  amount: string;
  currency: string;
  target_amount: string;
  target_currency: string;
  exchange_rate: { rate: string; from_currency: string; to_currency: string } | null;
  debit_transaction_id: string;
  credit_transaction_id: string;
  legs: Array<{ id: string; wallet_id: string; type: string; source: string; amount: string; currency: string }>;
  clearing: Array<{ currency: string; amount: string }>;
}

/**
 * Transfers of the organization:
 *  - each has exactly two legs carrying its transfer_id: a TRANSFER debit of −amount on its
 *    source and a TRANSFER credit of +target_amount on its target, named by the transfer
 *  - same currency: target_amount = amount and no clearing entry; FX: target_amount is amount
 *    × rate rounded half-even, and the clearing account took +amount and paid −target_amount
 *  - per currency, Σ TRANSFER lines of the organization's wallets + Σ clearing entries = 0
 *  - a line carries a transfer_id exactly when its source is TRANSFER, and names a transfer
 */
async function transferLegViolations(db: DataSource, organizationId: string, walletIds: string[]): Promise<string[]> {
  const transfers: TransferRow[] = await db.query(
    `WITH legs AS (
       SELECT workspace_id, transfer_id,
              json_agg(json_build_object('id', id, 'wallet_id', wallet_id, 'type', type, 'source', source, 'amount', amount::text,
                                         'currency', currency)) AS legs
         FROM wallet_transactions WHERE organization_id = $1 AND transfer_id IS NOT NULL
        GROUP BY workspace_id, transfer_id
     ), clearing AS (
       SELECT workspace_id, transfer_id, json_agg(json_build_object('currency', currency, 'amount', amount::text)) AS clearing
         FROM fx_clearing_entries WHERE organization_id = $1
        GROUP BY workspace_id, transfer_id
     )
     SELECT tr.id, tr.source_wallet_id, tr.target_wallet_id, tr.amount::text, tr.currency, tr.target_amount::text, tr.target_currency,
            tr.exchange_rate, tr.debit_transaction_id, tr.credit_transaction_id,
            COALESCE(l.legs, '[]') AS legs, COALESCE(c.clearing, '[]') AS clearing
       FROM wallet_transfers tr
       LEFT JOIN legs l ON l.workspace_id = tr.workspace_id AND l.transfer_id = tr.id
       LEFT JOIN clearing c ON c.workspace_id = tr.workspace_id AND c.transfer_id = tr.id
      WHERE tr.organization_id = $1`,
    [organizationId],
  );
  const violations: string[] = [];
  for (const tr of transfers) {
    const where = `transfer ${tr.id} (${tr.amount} ${tr.currency} → ${tr.target_amount} ${tr.target_currency})`;
    const [debit, credit, ...more] = [...tr.legs].sort((a, b) => (a.type === b.type ? 0 : a.type === 'debit' ? -1 : 1));
    const legsOk =
      more.length === 0 &&
      debit?.type === 'debit' &&
      credit?.type === 'credit' &&
      debit.source === 'TRANSFER' &&
      credit.source === 'TRANSFER' &&
      debit.wallet_id === tr.source_wallet_id &&
      credit.wallet_id === tr.target_wallet_id &&
      debit.id === tr.debit_transaction_id &&
      credit.id === tr.credit_transaction_id &&
      debit.currency === tr.currency &&
      credit.currency === tr.target_currency &&
      new Big(debit.amount).eq(new Big(tr.amount).neg()) &&
      new Big(credit.amount).eq(tr.target_amount);
    if (!legsOk) violations.push(`${where}: legs ${JSON.stringify(tr.legs)} are not one debit and one credit matching it`);
    if (tr.currency === tr.target_currency) {
      if (!new Big(tr.amount).eq(tr.target_amount)) violations.push(`${where}: same currency but amounts differ`);
      if (tr.clearing.length > 0 || tr.exchange_rate !== null) violations.push(`${where}: same currency with an FX leg`);
    } else {
      const expected = tr.exchange_rate
        ? roundHalfEven(new Big(tr.amount).times(tr.exchange_rate.rate), currencyScale(tr.target_currency))
        : null;
      if (!expected || !expected.eq(tr.target_amount))
        violations.push(`${where}: target_amount ≠ amount × rate ${tr.exchange_rate?.rate} (${expected})`);
      const clearing = Object.fromEntries(tr.clearing.map((entry) => [entry.currency, new Big(entry.amount)]));
      if (
        tr.clearing.length !== 2 ||
        !clearing[tr.currency]?.eq(tr.amount) ||
        !clearing[tr.target_currency]?.eq(new Big(tr.target_amount).neg())
      )
        violations.push(`${where}: clearing entries ${JSON.stringify(tr.clearing)}`);
    }
  }
  const sums: Array<{ currency: string; total: string }> = await db.query(
    `SELECT currency, sum(amount)::text AS total FROM (
       SELECT currency, amount FROM wallet_transactions WHERE organization_id = $1 AND source = 'TRANSFER'
       UNION ALL
       SELECT currency, amount FROM fx_clearing_entries WHERE organization_id = $1
     ) AS legs GROUP BY currency ORDER BY currency`,
    [organizationId],
  );
  for (const { currency, total } of sums)
    if (!new Big(total).eq(0)) violations.push(`${currency}: TRANSFER lines + FX clearing sum to ${total}, not 0`);
  const strays: Array<{ id: string; source: string; transfer_id: string | null }> = await db.query(
    `SELECT t.id, t.source, t.transfer_id FROM wallet_transactions t
      WHERE t.wallet_id = ANY ($1)
        AND (t.source IS NOT DISTINCT FROM 'TRANSFER') <> (t.transfer_id IS NOT NULL
             AND EXISTS (SELECT 1 FROM wallet_transfers tr WHERE tr.organization_id = t.organization_id
                           AND tr.workspace_id = t.workspace_id AND tr.id = t.transfer_id))`,
    [walletIds],
  );
  for (const line of strays) violations.push(`line ${line.id}: source ${line.source} with transfer_id ${line.transfer_id}`);
  return violations;
}
