import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock } from '@app/shared-kernel';
import { PaymentProviders } from '../payment-providers';
import { assertCustomerVisible } from '../visibility';
import { AttachPaymentMethodCommand, PaymentMethodView } from './attach-payment-method.command';
import { PaymentMethodStore } from './payment-method.store';

@CommandHandler(AttachPaymentMethodCommand)
export class AttachPaymentMethodHandler implements ICommandHandler<AttachPaymentMethodCommand> {
  constructor(
    private readonly providers: PaymentProviders,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, customerId, token }: AttachPaymentMethodCommand): Promise<PaymentMethodView> {
    await assertCustomerVisible(this.txHost.tx, actor, customerId, 'id');
    const provider = this.providers.forWorkspace(actor.workspaceMode);
    const method = await provider.attachPaymentMethod(token);
    const view = { ...method, customerId, provider: provider.name, createdAt: this.clock.now() };
    await this.paymentMethods.insert(actor, view);
    await this.audit.record(actor, {
      action: 'payment_method.attached',
      resourceType: 'payment_method',
      resourceId: view.id,
      data: { customer_id: customerId },
    });
    return view;
  }
}
