import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, previousAttributes } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { walletResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { keyOf, walletNotFound } from '../wallet-keys';
import { MakePrimaryWalletCommand } from './make-primary-wallet.command';

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
