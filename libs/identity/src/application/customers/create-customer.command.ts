import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { CustomerView } from './customer.view';

export class CreateCustomerCommand extends Command<CustomerView> {
  constructor(
    readonly actor: Actor,
    readonly input: { name: unknown; email?: unknown; currency: unknown; externalId?: unknown; metadata?: unknown },
  ) {
    super();
  }
}
