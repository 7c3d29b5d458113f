import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import Big from 'big.js';
import { isUuid, preparedQuery, SqlWrite } from '@app/shared-kernel';
import { Hold, HoldStatus, ReleaseReason } from '../domain/hold';
import { HoldRepository } from '../domain/hold.repository';
import { WalletKey } from '../domain/wallet.repository';
import { money } from './wallet-rows';

export const HOLD_COLUMNS = `wallet_id, id, amount, currency, status, expires_at, reason, reference_id, reference_type, reverse_charge,
  tax_rate, tax_rule_id, exchange_rate_base_leg_id, exchange_rate_id, fx_policy_applied, metric_key, subscription_id, applied_promotions,
  release_reason, captured_amount, captured_net_amount, captured_tax_amount, capture_transaction_id, captured_at, released_at, created_at`;

export interface HoldRow {
  wallet_id: string;
  id: string;
  amount: string;
  currency: string;
  status: HoldStatus;
  expires_at: Date | null;
  reason: string | null;
  reference_id: string | null;
  reference_type: string | null;
  reverse_charge: boolean;
  tax_rate: string | null;
  tax_rule_id: string | null;
  release_reason: ReleaseReason | null;
  captured_amount: string | null;
  captured_net_amount: string | null;
  captured_tax_amount: string | null;
  capture_transaction_id: string | null;
  captured_at: Date | null;
  released_at: Date | null;
  created_at: Date;
}

export function toHold(row: HoldRow): Hold {
  const c = row.currency;
  const optional = (value: string | null) => (value === null ? null : money(value, c));
  return Hold.restore({
    id: row.id,
    walletId: row.wallet_id,
    amount: money(row.amount, c),
    expiresAt: row.expires_at,
    reason: row.reason,
    referenceId: row.reference_id,
    referenceType: row.reference_type,
    reverseCharge: row.reverse_charge,
    taxRate: row.tax_rate === null ? null : new Big(row.tax_rate),
    taxRuleId: row.tax_rule_id,
    status: row.status,
    releaseReason: row.release_reason,
    capturedAmount: optional(row.captured_amount),
    capturedNetAmount: optional(row.captured_net_amount),
    capturedTaxAmount: optional(row.captured_tax_amount),
    captureTransactionId: row.capture_transaction_id,
    capturedAt: row.captured_at,
    releasedAt: row.released_at,
    createdAt: row.created_at,
  });
}

@Injectable()
export class TypeOrmHoldRepository extends HoldRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async lock(key: WalletKey, holdId: string): Promise<Hold | undefined> {
    if (!isUuid(holdId)) return undefined;
    const rows: HoldRow[] = await preparedQuery(
      this.txHost.tx,
      `SELECT ${HOLD_COLUMNS} FROM wallet_holds WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4 FOR UPDATE`,
      [key.organizationId, key.workspaceId, key.walletId, holdId],
    );
    return rows[0] && toHold(rows[0]);
  }

  insertion(key: WalletKey, hold: Hold): SqlWrite {
    const s = hold.snapshot;
    return {
      text: `INSERT INTO wallet_holds (organization_id, workspace_id, wallet_id, id, amount, currency, status, expires_at, reason, reference_id,
         reference_type, reverse_charge, tax_rate, tax_rule_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      values: [
        key.organizationId,
        key.workspaceId,
        key.walletId,
        s.id,
        s.amount.toString(),
        s.amount.currency,
        s.status,
        s.expiresAt,
        s.reason,
        s.referenceId,
        s.referenceType,
        s.reverseCharge,
        s.taxRate?.toString() ?? null,
        s.taxRuleId,
        s.createdAt,
      ],
    };
  }

  update(key: WalletKey, hold: Hold): SqlWrite {
    const s = hold.snapshot;
    return {
      text: `UPDATE wallet_holds SET status = $5, release_reason = $6, captured_amount = $7, captured_net_amount = $8, captured_tax_amount = $9,
         capture_transaction_id = $10, captured_at = $11, released_at = $12
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4`,
      values: [
        key.organizationId,
        key.workspaceId,
        key.walletId,
        s.id,
        s.status,
        s.releaseReason,
        s.capturedAmount?.toString() ?? null,
        s.capturedNetAmount?.toString() ?? null,
        s.capturedTaxAmount?.toString() ?? null,
        s.captureTransactionId,
        s.capturedAt,
        s.releasedAt,
      ],
    };
  }
}
