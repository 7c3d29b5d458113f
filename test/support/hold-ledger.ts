import Big from 'big.js';
import { DataSource } from 'typeorm';
import { ledgerViolations } from './wallet-helpers';

interface HoldCheckRow {
  wallet_id: string;
  id: string;
  amount: string;
  status: string;
  release_reason: string | null;
  captured_amount: string | null;
  capture_transaction_id: string | null;
  captured_at: Date | null;
  released_at: Date | null;
  capture_lines: Array<{ id: string; amount: string }>;
}

/**
 * The hold properties of R1 and R5, checked in SQL data for the given wallets:
 *  - held_balance = Σ amount of the wallet's pending holds
 *  - a captured hold has exactly one `hold_capture` line carrying its id, for −captured_amount,
 *    named by capture_transaction_id; any other hold has none
 *  - pending holds carry no capture or release fields; released ones a release reason and time;
 *    a captured hold is released only as 'capture_remainder', and then exactly when partly captured
 */
export async function holdViolations(db: DataSource, walletIds: string[]): Promise<string[]> {
  const violations: string[] = [];
  const wallets: Array<{ id: string; held_balance: string; pending: string }> = await db.query(
    `SELECT w.id, w.held_balance::text,
            COALESCE((SELECT sum(h.amount) FROM wallet_holds h
                       WHERE h.organization_id = w.organization_id AND h.workspace_id = w.workspace_id AND h.wallet_id = w.id
                         AND h.status = 'pending'), 0)::text AS pending
       FROM wallets w WHERE w.id = ANY ($1)`,
    [walletIds],
  );
  for (const w of wallets) {
    if (!new Big(w.held_balance).eq(w.pending)) violations.push(`${w.id}: held ${w.held_balance} ≠ Σ pending holds ${w.pending}`);
  }
  const holds: HoldCheckRow[] = await db.query(
    `SELECT h.wallet_id, h.id, h.amount::text, h.status, h.release_reason, h.captured_amount::text, h.capture_transaction_id,
            h.captured_at, h.released_at,
            COALESCE((SELECT json_agg(json_build_object('id', t.id, 'amount', t.amount::text))
                        FROM wallet_transactions t
                       WHERE t.organization_id = h.organization_id AND t.workspace_id = h.workspace_id AND t.wallet_id = h.wallet_id
                         AND t.hold_id = h.id), '[]') AS capture_lines
       FROM wallet_holds h WHERE h.wallet_id = ANY ($1)`,
    [walletIds],
  );
  for (const h of holds) {
    const where = `${h.wallet_id}: hold ${h.id} (${h.status})`;
    if (h.status === 'captured') {
      if (h.capture_lines.length !== 1) violations.push(`${where} has ${h.capture_lines.length} hold_capture lines`);
      const [line] = h.capture_lines;
      if (line && line.id !== h.capture_transaction_id) violations.push(`${where}: capture_transaction_id ≠ its line`);
      if (line && !new Big(line.amount).eq(new Big(h.captured_amount ?? '0').neg()))
        violations.push(`${where}: line ${line.amount} ≠ −captured_amount ${h.captured_amount}`);
      const partial = h.captured_amount !== null && new Big(h.captured_amount).lt(h.amount);
      if (partial !== (h.release_reason === 'capture_remainder') || partial !== (h.released_at !== null))
        violations.push(`${where}: release_reason ${h.release_reason} / released_at do not match captured ${h.captured_amount}`);
    } else {
      if (h.capture_lines.length !== 0) violations.push(`${where} has ${h.capture_lines.length} hold_capture lines`);
      if (h.captured_amount !== null || h.capture_transaction_id !== null || h.captured_at !== null)
        violations.push(`${where} carries capture fields`);
    }
    if (h.status === 'pending' && (h.release_reason !== null || h.released_at !== null))
      violations.push(`${where} carries release fields`);
    if (h.status === 'released' && !(['manual', 'expired'] as Array<string | null>).includes(h.release_reason))
      violations.push(`${where}: release_reason ${h.release_reason}`);
  }
  return violations;
}

/**
 * Every ledger property of wallet-helpers' ledgerViolations except "held = 0" (these wallets
 * carry holds), plus the hold properties above.
 */
export async function bookViolations(db: DataSource, walletIds: string[]): Promise<string[]> {
  const ledger = (await ledgerViolations(db, walletIds)).filter((violation) => !/: held \S+ ≠ 0$/.test(violation));
  return [...ledger, ...(await holdViolations(db, walletIds))];
}

/**
 * Transfers in an organization: each has one debit line (−amount) on its source and one credit
 * line (+target_amount) on its target, both carrying its id; and per currency the ledger lines
 * of transfers plus the FX clearing entries sum to zero.
 */
export async function transferViolations(db: DataSource, organizationId: string): Promise<string[]> {
  const violations: string[] = [];
  const transfers: Array<{
    id: string;
    source_wallet_id: string;
    target_wallet_id: string;
    amount: string;
    target_amount: string;
    lines: Array<{ wallet_id: string; type: string; amount: string; id: string }>;
    debit_transaction_id: string;
    credit_transaction_id: string;
  }> = await db.query(
    `SELECT tr.id, tr.source_wallet_id, tr.target_wallet_id, tr.amount::text, tr.target_amount::text,
            tr.debit_transaction_id, tr.credit_transaction_id,
            COALESCE((SELECT json_agg(json_build_object('wallet_id', t.wallet_id, 'type', t.type, 'amount', t.amount::text, 'id', t.id))
                        FROM wallet_transactions t
                       WHERE t.organization_id = tr.organization_id AND t.workspace_id = tr.workspace_id AND t.transfer_id = tr.id), '[]')
              AS lines
       FROM wallet_transfers tr WHERE tr.organization_id = $1`,
    [organizationId],
  );
  for (const tr of transfers) {
    const debits = tr.lines.filter((line) => line.type === 'debit');
    const credits = tr.lines.filter((line) => line.type === 'credit');
    const ok =
      tr.lines.length === 2 &&
      debits.length === 1 &&
      credits.length === 1 &&
      debits[0].wallet_id === tr.source_wallet_id &&
      credits[0].wallet_id === tr.target_wallet_id &&
      debits[0].id === tr.debit_transaction_id &&
      credits[0].id === tr.credit_transaction_id &&
      new Big(debits[0].amount).eq(new Big(tr.amount).neg()) &&
      new Big(credits[0].amount).eq(tr.target_amount);
    if (!ok)
      violations.push(`transfer ${tr.id}: legs ${JSON.stringify(tr.lines)} do not match ${tr.amount} → ${tr.target_amount}`);
  }
  const sums: Array<{ currency: string; total: string }> = await db.query(
    `SELECT currency, sum(amount)::text AS total FROM (
       SELECT currency, amount FROM wallet_transactions WHERE organization_id = $1 AND transfer_id IS NOT NULL
       UNION ALL
       SELECT currency, amount FROM fx_clearing_entries WHERE organization_id = $1
     ) AS legs GROUP BY currency ORDER BY currency`,
    [organizationId],
  );
  for (const { currency, total } of sums) {
    if (!new Big(total).eq(0)) violations.push(`${currency}: transfer lines + FX clearing sum to ${total}, not 0`);
  }
  return violations;
}
