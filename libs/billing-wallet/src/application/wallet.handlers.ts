import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { HoldForApprovalCommand } from '@app/identity';
import {
  Actor,
  AuditLog,
  Clock,
  DomainError,
  invalidParameter,
  isUniqueViolation,
  parseCurrency,
  previousAttributes,
} from '@app/shared-kernel';
import { Wallet } from '../domain/wallet';
import { WalletRepository } from '../domain/wallet.repository';
import { PaymentMethodStore } from './payment-method.store';
import { assertSettingsReferences } from './payment-method-reference';
import { toWalletSettings } from './settings-input';
import { keyOf, walletNotFound } from './wallet-keys';
import { checkedAgainst, moneyAudit, movementOf, parseSource, replayed } from './money-operation';
import { AutoTopUp } from './top-up.handlers';
import {
  ApplyMoneyOperationCommand,
  CreateWalletCommand,
  MakePrimaryWalletCommand,
  MoneyOperationInput,
  MoneyOperationKind,
  UpdateWalletSettingsCommand,
} from './wallet.commands';
import { MoneyOperationResult } from './wallet.view';
import { walletResponse } from './transaction-response';
import { WalletEvents } from './wallet-events';
import { assertCustomerVisible } from './visibility';

@CommandHandler(CreateWalletCommand)
export class CreateWalletHandler implements ICommandHandler<CreateWalletCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateWalletCommand): Promise<Wallet> {
    const currency = parseCurrency(input.currency);
    await assertCustomerVisible(this.txHost.tx, actor, input.customerId, 'customer_id');
    const settings = toWalletSettings(input.settings, currency);
    await assertSettingsReferences(this.paymentMethods, { ...actor, customerId: input.customerId }, settings);
    const wallet = Wallet.open({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      customerId: input.customerId,
      currency,
      isPrimary: false,
      limits: settings,
      autoTopup: settings.autoTopup,
      now: this.clock.now(),
    });
    try {
      await this.wallets.insert(wallet);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new DomainError('conflict', 'ALREADY_EXISTS', `This customer already has a ${currency} wallet.`, {
        param: 'currency',
      });
    }
    await this.audit.record(actor, {
      action: 'wallet.created',
      resourceType: 'wallet',
      resourceId: wallet.id,
      data: { currency },
    });
    await this.events.publish(actor, [{ type: 'wallet.created', object: walletResponse(wallet) }]);
    return wallet;
  }
}

@CommandHandler(UpdateWalletSettingsCommand)
export class UpdateWalletSettingsHandler implements ICommandHandler<UpdateWalletSettingsCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, currency, settings }: UpdateWalletSettingsCommand): Promise<Wallet> {
    const wallet = await this.wallets.lock(keyOf(actor, walletId));
    if (!wallet) throw walletNotFound();
    wallet.assertCurrency(currency);
    const changes = toWalletSettings(settings, wallet.snapshot.currency);
    await assertSettingsReferences(this.paymentMethods, wallet.snapshot, changes);
    const before = walletResponse(wallet);
    const availableBefore = wallet.availableBalance;
    wallet.configure(changes, this.clock.now());
    const after = walletResponse(wallet);
    await this.wallets.save(
      wallet,
      this.audit.write(actor, { action: 'wallet.settings_updated', resourceType: 'wallet', resourceId: wallet.id }),
      ...(await this.events.stage(
        actor,
        [{ wallet, availableBefore }],
        [{ type: 'wallet.updated', object: after, previousAttributes: previousAttributes(before, after) }],
      )),
    );
    return wallet;
  }
}

@CommandHandler(MakePrimaryWalletCommand)
export class MakePrimaryWalletHandler implements ICommandHandler<MakePrimaryWalletCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  /** Demote then promote in one transaction: the partial unique index never sees two primaries. */
  @Transactional()
  async execute({ actor, walletId }: MakePrimaryWalletCommand): Promise<Wallet> {
    const wallet = await this.wallets.lock(keyOf(actor, walletId));
    if (!wallet) throw walletNotFound();
    if (wallet.snapshot.isPrimary) return wallet;
    await this.wallets.demotePrimary(actor, wallet.snapshot.customerId, wallet.id);
    const before = walletResponse(wallet);
    wallet.makePrimary(this.clock.now());
    const after = walletResponse(wallet);
    await this.wallets.save(
      wallet,
      this.audit.write(actor, { action: 'wallet.made_primary', resourceType: 'wallet', resourceId: wallet.id }),
      ...(await this.events.stage(
        actor,
        [],
        [{ type: 'wallet.updated', object: after, previousAttributes: previousAttributes(before, after) }],
      )),
    );
    return wallet;
  }
}

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
