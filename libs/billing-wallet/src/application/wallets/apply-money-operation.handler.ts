import { Transactional } from '@nestjs-cls/transactional';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HoldForApprovalCommand } from '@app/identity';
import { Actor, AuditLog, Clock, invalidParameter } from '@app/shared-kernel';
import { WalletRepository } from '../../domain/wallet.repository';
import { AutoTopUp } from '../top-ups/auto-top-up';
import { WalletEvents } from '../wallet-events';
import { keyOf, walletNotFound } from '../wallet-keys';
import { MoneyOperationResult } from '../wallet.view';
import { ApplyMoneyOperationCommand, MoneyOperationInput, MoneyOperationKind } from './apply-money-operation.command';
import { checkedAgainst, moneyAudit, movementOf, parseSource, replayed } from './money-operation';

export const WALLET_ADJUST_CHECKPOINT = 'wallet.adjust';

/** credit, debit and adjust: lock, replay a repeated (source, reference), decide, save. */
@CommandHandler(ApplyMoneyOperationCommand)
export class ApplyMoneyOperationHandler implements ICommandHandler<ApplyMoneyOperationCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly commands: CommandBus,
    private readonly autoTopUp: AutoTopUp,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, kind, walletId, input }: ApplyMoneyOperationCommand) {
    if (kind === 'adjust') {
      // 404, 400 and replays come before the checkpoint: nothing is held that could never apply.
      const { amount, replay } = await this.prepare(actor, kind, walletId, input);
      if (replay) return replay;
      if (amount.isZero()) throw invalidParameter('amount', 'OUT_OF_RANGE', 'amount must not be zero.');
      const hold = await this.commands.execute(
        new HoldForApprovalCommand(actor, WALLET_ADJUST_CHECKPOINT, heldPayload(walletId, input)),
      );
      if (hold.held) return { held: true as const, approvalId: hold.approval.id, approvalStatus: hold.approval.status };
    }
    return this.apply(actor, kind, walletId, input);
  }

  /** Runs inside the caller's transaction (this handler's, or an approval's). */
  async apply(
    actor: Actor,
    kind: MoneyOperationKind,
    walletId: string,
    input: MoneyOperationInput,
  ): Promise<MoneyOperationResult> {
    const { source, wallet, amount, reference, replay } = await this.prepare(actor, kind, walletId, input);
    if (replay) return replay;
    const availableBefore = wallet.availableBalance;
    if (kind !== 'credit' && input.expiresAt)
      throw invalidParameter('expires_at', 'NOT_ALLOWED', 'expires_at applies to PROMOTION credits only.');
    const movement = movementOf(actor, input, { source, amount, reference }, this.clock.now());
    const entry =
      kind === 'credit'
        ? wallet.credit({ ...movement, expiresAt: input.expiresAt ?? null })
        : kind === 'debit'
          ? wallet.debit(movement)
          : wallet.adjust(movement);
    await this.wallets.save(
      wallet,
      this.audit.write(actor, moneyAudit(kind, wallet, entry)),
      ...(await this.events.stage(actor, [{ wallet, availableBefore }])),
    );
    await this.autoTopUp.afterBalanceLowered(keyOf(actor, walletId), wallet, availableBefore);
    return { transaction: { walletId, currency: wallet.snapshot.currency, entry }, replayed: false };
  }

  /** Locks the wallet and checks the request on its own (wallet, currency, amount, source); finds a replay. */
  private async prepare(actor: Actor, kind: MoneyOperationKind, walletId: string, input: MoneyOperationInput) {
    const source = parseSource(input.source, kind);
    const key = keyOf(actor, walletId);
    const wallet = await this.wallets.lock(key);
    if (!wallet) throw walletNotFound();
    const { amount, reference } = checkedAgainst(wallet, input);
    const original = reference === null ? undefined : await this.wallets.findByReference(key, source, reference);
    const replay = original && replayed(kind, walletId, wallet, original, amount);
    return { source, wallet, amount, reference, replay };
  }
}

/** What an approver sees and what the executor re-applies. */
export function heldPayload(walletId: string, input: MoneyOperationInput): Record<string, unknown> {
  return {
    wallet_id: walletId,
    amount: input.amount,
    source: input.source ?? null,
    currency: input.currency ?? null,
    reason: input.reason ?? null,
    reference: input.reference ?? null,
  };
}
