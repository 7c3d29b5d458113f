import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, DomainError, invalidParameter, Money } from '@app/shared-kernel';
import { LedgerEntry, Source, Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { AutoTopUp } from '../top-ups/auto-top-up';
import { WalletEvents } from '../wallet-events';
import { keyOf, walletNotFound } from '../wallet-keys';
import { BatchRejectedError } from './batch-rejected.error';
import { BatchDebitInput, BatchDebitOutcome, DebitBatchCommand, MAX_BATCH_DEBITS } from './debit-batch.command';
import { checkedAgainst, moneyAudit, movementOf, parseSource, referenceKey, replayed } from './money-operation';

interface Checked {
  input: BatchDebitInput;
  wallet: Wallet;
  source: Source;
  amount: Money;
  reference: string | null;
}

/**
 * POST /v1/wallet_debits: each item is a debit as POST /v1/wallets/{id}/debit decides it (the
 * same checks, the same (source, reference) replay, the aggregate's rules, the same audit row and
 * automatic top-up), items on one wallet in request order. The database work is a fixed number of
 * round trips whatever the batch's size: the distinct wallets locked in id order at once, the
 * references looked up at once, every decision made in memory against the locked rows (a refused
 * item changes nothing, so it simply writes nothing), then one statement writes every wallet, line,
 * lot and audit row. `atomic`: one refused item refuses the batch (422 BATCH_REJECTED), nothing applied.
 */
@CommandHandler(DebitBatchCommand)
export class DebitBatchHandler implements ICommandHandler<DebitBatchCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly autoTopUp: AutoTopUp,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, items, atomic }: DebitBatchCommand): Promise<BatchDebitOutcome[]> {
    if (items.length === 0 || items.length > MAX_BATCH_DEBITS)
      throw invalidParameter('debits', 'OUT_OF_RANGE', `debits takes 1 to ${MAX_BATCH_DEBITS} items.`);
    const scope = { organizationId: actor.organizationId, workspaceId: actor.workspaceId };
    const locked = await this.wallets.lockAll(
      scope,
      items.map((item) => item.walletId),
    );
    const checked = items.map((input) => refusalOr(() => check(input, locked)));
    const lookups = checked.flatMap((item) =>
      item instanceof DomainError || item.reference === null
        ? []
        : [{ walletId: item.wallet.id, source: item.source, reference: item.reference }],
    );
    const lines = new Map<string, LedgerEntry>();
    for (const { walletId, entry } of await this.wallets.findByReferences(scope, lookups))
      lines.set(referenceKey(walletId, entry.source!, entry.reference!), entry);

    const availableBefore = new Map([...locked.values()].map((wallet) => [wallet.id, wallet.availableBalance]));
    const now = this.clock.now();
    const applied: Array<{ wallet: Wallet; entry: LedgerEntry }> = [];
    const outcomes = checked.map((item, index): BatchDebitOutcome => {
      if (item instanceof DomainError) return { index, error: item };
      const decided = refusalOr(() => this.decide(actor, item, lines, now));
      if (decided instanceof DomainError) return { index, error: decided };
      if (!decided.replayed) applied.push({ wallet: item.wallet, entry: decided.transaction.entry });
      return { index, result: decided };
    });

    const refusals = outcomes.flatMap((outcome) => ('error' in outcome ? [outcome] : []));
    if (atomic && refusals.length > 0) throw new BatchRejectedError(refusals);
    const touched = [...new Set(applied.map(({ wallet }) => wallet))];
    if (touched.length === 0) return outcomes;
    await this.wallets.saveAll(
      touched,
      this.audit.writeMany(
        actor,
        applied.map(({ wallet, entry }) => moneyAudit('debit', wallet, entry)),
      ),
      ...(await this.events.stage(
        actor,
        touched.map((wallet) => ({ wallet, availableBefore: availableBefore.get(wallet.id)! })),
      )),
    );
    for (const wallet of touched)
      await this.autoTopUp.afterBalanceLowered(keyOf(actor, wallet.id), wallet, availableBefore.get(wallet.id)!);
    return outcomes;
  }

  /**
   * One item against its wallet as the items before it left it: a (source, reference) already on
   * the wallet (committed, or applied earlier in this batch) replays or is refused; else the debit.
   */
  private decide(actor: Actor, item: Checked, lines: Map<string, LedgerEntry>, now: Date) {
    const key = item.reference === null ? undefined : referenceKey(item.wallet.id, item.source, item.reference);
    const original = key === undefined ? undefined : lines.get(key);
    if (original) return replayed('debit', item.wallet.id, item.wallet, original, item.amount);
    const entry = item.wallet.debit(movementOf(actor, item.input, item, now));
    if (key !== undefined) lines.set(key, entry);
    return { transaction: { walletId: item.wallet.id, currency: item.wallet.snapshot.currency, entry }, replayed: false };
  }
}

/** The checks of POST /v1/wallets/{id}/debit that need no other item: source, the wallet, currency, amount. */
function check(input: BatchDebitInput, locked: Map<string, Wallet>): Checked {
  const source = parseSource(input.source, 'debit');
  const wallet = locked.get(input.walletId.toLowerCase());
  if (!wallet) throw walletNotFound();
  const { amount, reference } = checkedAgainst(wallet, input);
  return { input, wallet, source, amount, reference };
}

/** The item's refusal as a value; anything that is not a refusal (a bug, the database) still fails the request. */
function refusalOr<T>(decide: () => T): T | DomainError {
  try {
    return decide();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}
