import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, isUniqueViolation, parseCurrency, SharedErrors } from '@app/shared-kernel';
import { Wallet } from '../../domain/wallet';
import { WalletRepository } from '../../domain/wallet.repository';
import { PaymentMethodStore } from '../payment-methods/payment-method.store';
import { assertSettingsReferences } from '../payment-methods/payment-method-reference';
import { walletResponse } from '../transaction-response';
import { assertCustomerVisible } from '../visibility';
import { WalletEvents } from '../wallet-events';
import { CreateWalletCommand } from './create-wallet.command';
import { toWalletSettings } from './settings-input';

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
      throw SharedErrors.ALREADY_EXISTS.create(`This customer already has a ${currency} wallet.`, {
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
