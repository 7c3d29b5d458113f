import { Injectable } from '@nestjs/common';
import { EventDraft, EventLog, EventTenant, Money, SqlWrite } from '@app/shared-kernel';
import { Wallet } from '../domain/wallet';
import { transactionResponse, walletResponse } from './transaction-response';

/** A wallet a decision changed, with its available balance before the change. */
export interface ChangedWallet {
  wallet: Wallet;
  availableBefore: Money;
}

/**
 * The wallet context's events, built by the same mappers as its GET responses: one
 * `wallet.transaction.created` per ledger line the decision appended (credits, debits,
 * adjustments, transfer legs, captures, expiries) and `wallet.balance_low` when the available
 * balance crossed `low_balance_threshold` downwards. Staged to go into the decision's own
 * statement (`wallets.save(…, ...writes)`), so events cost no extra round trip.
 */
@Injectable()
export class WalletEvents {
  constructor(private readonly events: EventLog) {}

  /** Call before `save` (which takes the pending ledger lines). */
  stage(tenant: EventTenant, changed: readonly ChangedWallet[], extra: readonly EventDraft[] = []): Promise<SqlWrite[]> {
    return this.events.stage(tenant, [...changed.flatMap(ledgerEvents), ...extra]);
  }

  publish(tenant: EventTenant, drafts: readonly EventDraft[]): Promise<void> {
    return this.events.publish(tenant, drafts);
  }
}

export function ledgerEvents({ wallet, availableBefore }: ChangedWallet): EventDraft[] {
  const s = wallet.snapshot;
  const drafts: EventDraft[] = wallet.pendingEntries.map((entry) => ({
    type: 'wallet.transaction.created',
    object: transactionResponse({ walletId: s.id, currency: s.currency, entry }),
  }));
  const threshold = s.limits.lowBalanceThreshold;
  if (threshold && !availableBefore.lt(threshold) && wallet.availableBalance.lt(threshold)) {
    drafts.push({ type: 'wallet.balance_low', object: walletResponse(wallet) });
  }
  return drafts;
}
