import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface PaymentMethodView {
  id: string;
  customerId: string;
  provider: string;
  brand: string;
  last4: string;
  createdAt: Date;
}

export class AttachPaymentMethodCommand extends Command<PaymentMethodView> {
  constructor(
    readonly actor: Actor,
    readonly customerId: string,
    readonly token: string,
  ) {
    super();
  }
}
