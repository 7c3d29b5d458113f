import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import Big from 'big.js';
import {
  AuditLog,
  Clock,
  invalidParameter,
  Money,
  newId,
  preparedQuery,
  roundHalfEven,
  SqlWrite,
  currencyScale,
} from '@app/shared-kernel';
import { TransferPortion, Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { FxRateRow } from '../fx-rates/fx-rate.view';
import { AutoTopUp } from '../top-ups/auto-top-up';
import { WalletEvents } from '../wallet-events';
import { createdBy, keyOf, walletNotFound } from '../wallet-keys';
import { TransferFundsCommand, TransferResult } from './transfer-funds.command';
import { WalletErrors } from '../../domain/wallet-errors';

function convert(amount: Money, rate: Big, currency: string): Money {
  return Money.of(roundHalfEven(amount.amount.times(rate), currencyScale(currency)), currency);
}

/**
 * Converts the whole amount once and shares it over the portions by cumulative rounding, so
 * that the parts add up to exactly convert(total), however the amount was funded.
 */
function convertPortions(portions: TransferPortion[], rate: Big, currency: string): TransferPortion[] {
  let drawn: Money | undefined;
  let given = Money.zero(currency);
  return portions.map((portion) => {
    drawn = drawn ? drawn.plus(portion.amount) : portion.amount;
    const upTo = convert(drawn, rate, currency);
    const amount = upTo.minus(given);
    given = upTo;
    return { ...portion, amount };
  });
}

/**
 * One atomic transfer: both wallets locked in id order (so two opposite transfers never
 * deadlock), a debit and a credit sharing the transfer id, promotional lots first with their
 * expiries carried over, and cross-currency legs balanced through the FX clearing account.
 */
@CommandHandler(TransferFundsCommand)
export class TransferFundsHandler implements ICommandHandler<TransferFundsCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly autoTopUp: AutoTopUp,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, sourceWalletId, input }: TransferFundsCommand): Promise<TransferResult> {
    if (input.targetWalletId.toLowerCase() === sourceWalletId.toLowerCase()) {
      throw WalletErrors.SAME_WALLET_TRANSFER.create('A wallet cannot transfer to itself.', {
        param: 'target_wallet_id',
      });
    }
    const { source, target } = await this.lockBoth(actor, sourceWalletId, input.targetWalletId);
    source.assertCurrency(typeof input.currency === 'string' ? input.currency : String(input.currency));
    const amount = Money.parse(input.amount, source.snapshot.currency, 'amount.value');
    if (!amount.isPositive()) throw invalidParameter('amount.value', 'OUT_OF_RANGE', 'amount.value must be greater than zero.');
    const now = this.clock.now();
    const rate = await this.rateFor(actor, source.snapshot.currency, target.snapshot.currency);
    const transferId = newId();
    const availableBefore = source.availableBalance;
    const targetAvailableBefore = target.availableBalance;
    const by = createdBy(actor);
    const reason = input.reason ?? null;
    const { entry: debit, portions } = source.transferOut(amount, transferId, by, now, reason);
    const received: TransferPortion[] = rate ? convertPortions(portions, rate.value, target.snapshot.currency) : portions;
    if (!received.some((portion) => portion.amount.isPositive())) {
      throw invalidParameter('amount.value', 'OUT_OF_RANGE', 'The converted amount rounds to zero.');
    }
    const credit = target.transferIn(
      received.filter((portion) => portion.amount.isPositive()),
      transferId,
      by,
      now,
      reason,
    );
    const exchangeRate = rate && {
      rate: rate.value.toFixed(),
      from_currency: source.snapshot.currency,
      to_currency: target.snapshot.currency,
      as_of: rate.asOf.toISOString(),
    };
    debit.exchangeRate = exchangeRate;
    credit.exchangeRate = exchangeRate;
    await this.wallets.save(
      [source, target],
      ...transferWrites(actor, {
        transferId,
        source,
        target,
        amount,
        targetAmount: credit.amount,
        exchangeRate,
        debitId: debit.id,
        creditId: credit.id,
        reason,
        now,
      }),
      this.audit.write(actor, {
        action: 'wallet.transferred',
        resourceType: 'wallet_transfer',
        resourceId: transferId,
        data: { source_wallet_id: source.id, target_wallet_id: target.id, amount: amount.toString(), currency: amount.currency },
      }),
      // Both legs, each a wallet.transaction.created of its wallet.
      ...(await this.events.stage(actor, [
        { wallet: source, availableBefore },
        { wallet: target, availableBefore: targetAvailableBefore },
      ])),
    );
    await this.autoTopUp.afterBalanceLowered(keyOf(actor, source.id), source, availableBefore);
    return {
      transferId,
      sourceWalletId: source.id,
      targetWalletId: target.id,
      amount: { value: amount.toString(), currency: amount.currency },
      targetAmount: { value: credit.amount.toString(), currency: target.snapshot.currency },
      exchangeRate,
      debit: { walletId: source.id, currency: source.snapshot.currency, entry: debit },
      credit: { walletId: target.id, currency: target.snapshot.currency, entry: credit },
    };
  }

  /** Both wallets in one round trip, locked in id order: two opposite transfers never deadlock. */
  private async lockBoth(
    actor: TransferFundsCommand['actor'],
    sourceId: string,
    targetId: string,
  ): Promise<{ source: Wallet; target: Wallet }> {
    const locked = await this.wallets.lockAll(actor, [sourceId, targetId]);
    const source = locked.get(sourceId.toLowerCase());
    const target = locked.get(targetId.toLowerCase());
    if (!source) throw walletNotFound();
    if (!target) throw WalletErrors.WALLET_NOT_FOUND.create('No such target wallet.', { param: 'target_wallet_id' });
    return { source, target };
  }

  /** The rate of the transfer's own workspace: a sandbox rate never feeds a live transfer. */
  private async rateFor(
    actor: TransferFundsCommand['actor'],
    from: string,
    to: string,
  ): Promise<{ value: Big; asOf: Date } | null> {
    if (from === to) return null;
    const [row] = await preparedQuery<FxRateRow>(
      this.txHost.tx,
      `SELECT from_currency, to_currency, rate, updated_at FROM fx_rates
        WHERE organization_id = $1 AND workspace_id = $4 AND from_currency = $2 AND to_currency = $3`,
      [actor.organizationId, from, to, actor.workspaceId],
    );
    if (!row) {
      throw WalletErrors.FX_RATE_NOT_CONFIGURED.create(
        `No ${from}→${to} rate is configured; set one with PUT /v1/fx_rates/${from}/${to}.`,
        {
          details: { from_currency: from, to_currency: to },
        },
      );
    }
    return { value: new Big(row.rate), asOf: row.updated_at };
  }
}

/** The transfer row and, across currencies, its two FX clearing lines: written with the legs, in one statement. */
function transferWrites(
  actor: TransferFundsCommand['actor'],
  t: {
    transferId: string;
    source: Wallet;
    target: Wallet;
    amount: Money;
    targetAmount: Money;
    exchangeRate: Record<string, string> | null;
    debitId: string;
    creditId: string;
    reason: string | null;
    now: Date;
  },
): SqlWrite[] {
  const transfer: SqlWrite = {
    text: `INSERT INTO wallet_transfers (organization_id, workspace_id, id, source_wallet_id, target_wallet_id, amount, currency,
       target_amount, target_currency, exchange_rate, debit_transaction_id, credit_transaction_id, reason, created_by_type,
       created_by_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    values: [
      actor.organizationId,
      actor.workspaceId,
      t.transferId,
      t.source.id,
      t.target.id,
      t.amount.toString(),
      t.amount.currency,
      t.targetAmount.toString(),
      t.targetAmount.currency,
      t.exchangeRate && JSON.stringify(t.exchangeRate),
      t.debitId,
      t.creditId,
      t.reason,
      actor.principal.type,
      actor.principal.id,
      t.now,
    ],
  };
  if (!t.exchangeRate) return [transfer];
  const clearing = [
    { currency: t.amount.currency, amount: t.amount.toString() },
    { currency: t.targetAmount.currency, amount: t.targetAmount.negate().toString() },
  ];
  return [
    transfer,
    {
      text: `INSERT INTO fx_clearing_entries (organization_id, workspace_id, transfer_id, currency, amount, created_at)
       SELECT $1, $2, $3, c.currency, c.amount, $4 FROM jsonb_to_recordset($5::jsonb) AS c(currency char(3), amount numeric)`,
      values: [actor.organizationId, actor.workspaceId, t.transferId, t.now, JSON.stringify(clearing)],
    },
  ];
}
