import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';
import { HoldRepository } from '../../domain/hold.repository';
import { WalletRepository } from '../../domain/wallet.repository';
import { holdResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { keyOf } from '../wallet-keys';
import { lockBoth } from './hold-locks';
import { ReleaseHoldCommand } from './release-hold.command';

@CommandHandler(ReleaseHoldCommand)
export class ReleaseHoldHandler implements ICommandHandler<ReleaseHoldCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, holdId }: ReleaseHoldCommand): Promise<Hold> {
    const key = keyOf(actor, walletId);
    const { wallet, hold } = await lockBoth(this.wallets, this.holds, key, holdId);
    wallet.releaseHold(hold, 'manual', this.clock.now());
    await this.wallets.save(
      wallet,
      this.holds.update(key, hold),
      this.audit.write(actor, {
        action: 'wallet_hold.released',
        resourceType: 'wallet_hold',
        resourceId: holdId,
        data: { wallet_id: walletId },
      }),
      ...(await this.events.stage(actor, [], [{ type: 'wallet.hold.released', object: holdResponse(hold) }])),
    );
    return hold;
  }
}
