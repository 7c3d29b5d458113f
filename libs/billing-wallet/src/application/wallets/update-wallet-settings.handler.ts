import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, previousAttributes } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { PaymentMethodStore } from '../payment-methods/payment-method.store';
import { assertSettingsReferences } from '../payment-methods/payment-method-reference';
import { walletResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { keyOf, walletNotFound } from '../wallet-keys';
import { toWalletSettings } from './settings-input';
import { UpdateWalletSettingsCommand } from './update-wallet-settings.command';

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
