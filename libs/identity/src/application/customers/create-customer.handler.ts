import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  Actor,
  AuditLog,
  Clock,
  CursorCodec,
  DomainError,
  isUuid,
  keysetPage,
  EventLog,
  newestFirstPosition,
  Outbox,
} from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { CustomerCreated, registerCustomer } from '../../domain/customer';
import { CustomerWallets } from '../../domain/customer-wallets';
import { CreateCustomerCommand, CustomerView, GetCustomerQuery, ListCustomersQuery } from './customer.commands';
import { customerResponse } from './customer-response';

interface CustomerRow {
  workspace_id: string;
  id: string;
  name: string;
  email: string | null;
  currency: string;
  external_id: string | null;
  metadata: Record<string, string>;
  created_at: Date;
}

const COLUMNS = 'workspace_id, id, name, email, currency, external_id, metadata, created_at';

/** The rows with their customers' current primary wallets, read through the wallet context's port. */
async function toViews(wallets: CustomerWallets, actor: Actor, rows: CustomerRow[]): Promise<CustomerView[]> {
  const ids = rows.map((row) => row.id);
  const primaries = ids.length > 0 ? await wallets.primaryWalletIds(actor, ids) : new Map<string, string>();
  return rows.map((row) => {
    const primaryWalletId = primaries.get(row.id);
    // A customer commits with its primary wallet, and make_primary swaps in one transaction.
    if (!primaryWalletId) throw new Error(`Customer ${row.id} has no primary wallet`);
    return {
      workspaceId: row.workspace_id,
      id: row.id,
      name: row.name,
      email: row.email,
      currency: row.currency,
      externalId: row.external_id,
      metadata: row.metadata,
      createdAt: row.created_at,
      primaryWalletId,
    };
  });
}

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
      throw new DomainError('conflict', 'ALREADY_EXISTS', 'A customer with this external_id already exists.', {
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

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly wallets: CustomerWallets,
  ) {}

  async execute({ actor, customerId }: GetCustomerQuery): Promise<CustomerView> {
    const rows: CustomerRow[] = isUuid(customerId)
      ? await this.dataSource.query(
          `SELECT ${COLUMNS} FROM customers WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, customerId],
        )
      : [];
    if (!rows[0]) throw new DomainError('not_found', 'CUSTOMER_NOT_FOUND', 'No such customer.', { param: 'id' });
    const [view] = await toViews(this.wallets, actor, rows);
    return view;
  }
}

@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
    private readonly wallets: CustomerWallets,
  ) {}

  async execute({ actor, limit, cursor, filters }: ListCustomersQuery) {
    const page = await keysetPage<CustomerRow>(
      this.cursors,
      {
        list: 'customers',
        filters: { external_id: filters.externalId ?? null, email: filters.email ?? null },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${COLUMNS} FROM customers
            WHERE organization_id = $1 AND workspace_id = $2
              AND ($3::text IS NULL OR external_id = $3) AND ($4::text IS NULL OR email = lower($4))
              AND ($5::timestamptz IS NULL OR (created_at, id) < ($5, $6::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $7`,
          [
            actor.organizationId,
            actor.workspaceId,
            filters.externalId ?? null,
            filters.email ?? null,
            after?.[0] ?? null,
            after?.[1] ?? null,
            rows,
          ],
        ),
      newestFirstPosition,
    );
    return { ...page, data: await toViews(this.wallets, actor, page.data) };
  }
}
