import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, Money } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';
import { HoldRepository } from '../../domain/hold.repository';
import { WalletRepository } from '../../domain/wallet.repository';
import { holdResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { createdBy, keyOf } from '../wallet-keys';
import { CaptureHoldCommand } from './capture-hold.command';
import { lockBoth } from './hold-locks';

@CommandHandler(CaptureHoldCommand)
export class CaptureHoldHandler implements ICommandHandler<CaptureHoldCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, holdId, amount }: CaptureHoldCommand): Promise<Hold> {
    const key = keyOf(actor, walletId);
    const { wallet, hold } = await lockBoth(this.wallets, this.holds, key, holdId);
    const captured =
      amount === undefined || amount === null ? undefined : Money.parse(amount, wallet.snapshot.currency, 'amount');
    const availableBefore = wallet.availableBalance;
    wallet.captureHold(hold, captured, createdBy(actor), this.clock.now());
    // The capture's ledger line, then the hold as captured.
    const events = await this.events.stage(
      actor,
      [{ wallet, availableBefore }],
      [{ type: 'wallet.hold.captured', object: holdResponse(hold) }],
    );
    await this.wallets.save(
      wallet,
      this.holds.update(key, hold),
      this.audit.write(actor, {
        action: 'wallet_hold.captured',
        resourceType: 'wallet_hold',
        resourceId: holdId,
        data: { wallet_id: walletId, amount: hold.snapshot.capturedAmount!.toString() },
      }),
      ...events,
    );
    return hold;
  }
}
