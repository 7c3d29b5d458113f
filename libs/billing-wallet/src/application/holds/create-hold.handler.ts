import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter, JobQueue, jobTenantOf, Money, parseDecimal } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';
import { HoldRepository } from '../../domain/hold.repository';
import { Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { AutoTopUp } from '../top-ups/auto-top-up';
import { holdResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { keyOf, walletNotFound } from '../wallet-keys';
import { CreateHoldCommand, HoldInput } from './create-hold.command';
import { RELEASE_EXPIRED_HOLD_JOB, ReleaseJob } from './expired-hold-releaser';

function termsOf(input: HoldInput, wallet: Wallet) {
  wallet.assertCurrency(input.currency);
  const currency = wallet.snapshot.currency;
  if (((input.referenceId ?? null) === null) !== ((input.referenceType ?? null) === null)) {
    throw invalidParameter(
      input.referenceId ? 'reference_type' : 'reference_id',
      'REQUIRED',
      'reference_id and reference_type go together.',
    );
  }
  return {
    amount: Money.parse(input.amount, currency, 'amount'),
    expiresAt: input.expiresAt ?? null,
    reason: input.reason ?? null,
    referenceId: input.referenceId ?? null,
    referenceType: input.referenceType ?? null,
    reverseCharge: input.reverseCharge ?? false,
    taxRate:
      input.taxRate == null
        ? null
        : parseDecimal(input.taxRate, 'tax_rate', { maxIntegerDigits: 1, maxScale: 8, allowNegative: false }),
    taxRuleId: input.taxRuleId ?? null,
  };
}

@CommandHandler(CreateHoldCommand)
export class CreateHoldHandler implements ICommandHandler<CreateHoldCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly jobs: JobQueue,
    private readonly autoTopUp: AutoTopUp,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, input }: CreateHoldCommand): Promise<Hold> {
    const key = keyOf(actor, walletId);
    const wallet = await this.wallets.lock(key);
    if (!wallet) throw walletNotFound();
    const availableBefore = wallet.availableBalance;
    const hold = wallet.placeHold(termsOf(input, wallet), this.clock.now());
    await this.wallets.save(
      wallet,
      this.holds.insertion(key, hold),
      this.audit.write(actor, {
        action: 'wallet_hold.created',
        resourceType: 'wallet_hold',
        resourceId: hold.id,
        data: { wallet_id: walletId },
      }),
      ...(await this.events.stage(
        actor,
        [{ wallet, availableBefore }],
        [{ type: 'wallet.hold.created', object: holdResponse(hold) }],
      )),
    );
    await this.autoTopUp.afterBalanceLowered(key, wallet, availableBefore);
    if (hold.snapshot.expiresAt) {
      const job: ReleaseJob = { ...key, holdId: hold.id, workspaceMode: actor.workspaceMode };
      await this.jobs.send(RELEASE_EXPIRED_HOLD_JOB, jobTenantOf(job), job, { startAfter: hold.snapshot.expiresAt });
    }
    return hold;
  }
}
