import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog, Outbox, SharedErrors } from '@app/shared-kernel';
import { CustomerCreated, registerCustomer } from '../../domain/customer';
import { CustomerWallets } from '../../domain/customer-wallets';
import { CreateCustomerCommand } from './create-customer.command';
import { CustomerView } from './customer.view';
import { customerResponse } from './customer-response';

@CommandHandler(CreateCustomerCommand)
export class CreateCustomerHandler implements ICommandHandler<CreateCustomerCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly wallets: CustomerWallets,
    private readonly outbox: Outbox,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  /** The customer and its primary wallet commit together: once answered, the wallet is there. */
  @Transactional()
  async execute({ actor, input }: CreateCustomerCommand): Promise<CustomerView> {
    const customer = registerCustomer({
      ...input,
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      now: this.clock.now(),
    });
    const inserted = await this.txHost.tx.query(
      `INSERT INTO customers (organization_id, workspace_id, id, name, email, currency, external_id, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (organization_id, workspace_id, external_id) WHERE external_id IS NOT NULL DO NOTHING RETURNING id`,
      [
        customer.organizationId,
        customer.workspaceId,
        customer.id,
        customer.name,
        customer.email,
        customer.currency,
        customer.externalId,
        JSON.stringify(customer.metadata),
        customer.createdAt,
      ],
    );
    if (inserted.length === 0) {
      throw SharedErrors.ALREADY_EXISTS.create('A customer with this external_id already exists.', {
        param: 'external_id',
      });
    }
    await this.audit.record(actor, { action: 'customer.created', resourceType: 'customer', resourceId: customer.id });
    const primaryWalletId = await this.wallets.openPrimary(actor, customer);
    await this.outbox.add(
      new CustomerCreated(
        customer.organizationId,
        customer.workspaceId,
        customer.id,
        customer.currency,
        customer.createdAt.toISOString(),
        primaryWalletId,
      ),
      customer.organizationId,
    );
    const { organizationId: _organizationId, ...state } = customer;
    const view: CustomerView = { ...state, primaryWalletId };
    await this.events.publish(actor, [{ type: 'customer.created', object: customerResponse(view) }]);
    return view;
  }
}
