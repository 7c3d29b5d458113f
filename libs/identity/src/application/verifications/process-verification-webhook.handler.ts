import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Clock, CursorCodec, DomainError, invalidParameter, isUuid, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import {
  CustomerVerification,
  isVerificationStatus,
  isVerificationType,
  VerificationStatus,
  VerificationType,
} from '../../domain/customer-verification';
import { CustomerVerificationRepository } from '../../domain/customer-verification.repository';
import { SandboxVerificationProvider, sandboxStatusOf } from '../../infrastructure/sandbox-verification-provider';
import {
  toVerificationState,
  VERIFICATION_COLUMNS,
  VerificationRow,
} from '../../infrastructure/typeorm-customer-verification.repository';
import { VerificationLifecycle, verificationNotFound, VerificationProviders, verificationView } from './verification-lifecycle';
import {
  CreateSandboxVerificationCommand,
  GetVerificationQuery,
  ListVerificationsQuery,
  OverrideVerificationStatusCommand,
  ProcessVerificationWebhookCommand,
  VerificationSummaryView,
  VerificationView,
} from './verification.commands';

function statusOf(value: unknown): VerificationStatus {
  if (!isVerificationStatus(value)) {
    throw invalidParameter(
      'status',
      'INVALID_VALUE',
      'status must be one of pending, verified, expired, failed, manual, maintenance.',
    );
  }
  return value;
}

function typeOf(value: unknown): VerificationType {
  if (!isVerificationType(value)) {
    throw invalidParameter(
      'verification_type',
      'INVALID_VALUE',
      'verification_type must be one of kyc, kyb, age, business_entity, vat.',
    );
  }
  return value;
}

@CommandHandler(OverrideVerificationStatusCommand)
export class OverrideVerificationStatusHandler implements ICommandHandler<OverrideVerificationStatusCommand> {
  constructor(
    private readonly verifications: CustomerVerificationRepository,
    private readonly lifecycle: VerificationLifecycle,
    private readonly clock: Clock,
  ) {}

  /** Audited with the principal that made it and the status it replaced; the same status is a no-op. */
  @Transactional()
  async execute({ actor, verificationId, status }: OverrideVerificationStatusCommand): Promise<VerificationView> {
    const to = statusOf(status);
    const verification = await this.verifications.lock({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      verificationId,
    });
    if (!verification) throw verificationNotFound();
    const change = verification.overrideStatus(to, this.clock.now());
    if (change) {
      await this.verifications.update(verification);
      await this.lifecycle.changed(verification, change, actor);
    }
    return verificationView(verification);
  }
}

@CommandHandler(ProcessVerificationWebhookCommand)
export class ProcessVerificationWebhookHandler implements ICommandHandler<ProcessVerificationWebhookCommand> {
  constructor(
    private readonly providers: VerificationProviders,
    private readonly verifications: CustomerVerificationRepository,
    private readonly lifecycle: VerificationLifecycle,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /**
   * Verified before anything is read or stored. The provider's reference resolves the record
   * (hence its tenant); the (provider, event id) key makes a redelivery a no-op; a result older
   * than the last one applied is kept with its delivery but never moves the record.
   */
  @Transactional()
  async execute({ provider: name, rawBody, signature }: ProcessVerificationWebhookCommand): Promise<{ duplicate: boolean }> {
    const provider = this.providers.named(name);
    if (!provider) throw new DomainError('not_found', 'UNKNOWN_PROVIDER', `No verification provider named ${name}.`);
    const delivery = provider.verifyWebhook(rawBody, signature);
    const verification = await this.verifications.lockByReference(name, delivery.reference);
    if (!verification) throw verificationNotFound('reference');
    const now = this.clock.now();
    const { applied, change } = verification.recordProviderResult(delivery.report, 'provider', now);
    const state = verification.snapshot;
    const inserted = await this.txHost.tx.query(
      `INSERT INTO verification_webhook_events (provider, event_id, organization_id, workspace_id, verification_id, event_type,
         payload, occurred_at, applied, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [
        name,
        delivery.eventId,
        state.organizationId,
        state.workspaceId,
        state.id,
        delivery.eventType,
        rawBody,
        delivery.report.occurredAt,
        applied,
        now,
      ],
    );
    // Already received: the record as it stands is that delivery's outcome; this one changes nothing.
    if (inserted.length === 0) return { duplicate: true };
    if (!applied) return { duplicate: false };
    await this.verifications.update(verification);
    if (change) await this.lifecycle.changed(verification, change, undefined, { event_id: delivery.eventId });
    else await this.lifecycle.scheduleFor(verification);
    return { duplicate: false };
  }
}

@CommandHandler(CreateSandboxVerificationCommand)
export class CreateSandboxVerificationHandler implements ICommandHandler<CreateSandboxVerificationCommand> {
  constructor(
    private readonly sandbox: SandboxVerificationProvider,
    private readonly verifications: CustomerVerificationRepository,
    private readonly lifecycle: VerificationLifecycle,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /** Sandbox workspaces only, as Stripe's test helpers: the sandbox provider opens the check in the status asked. */
  @Transactional()
  async execute({ actor, input }: CreateSandboxVerificationCommand): Promise<VerificationView> {
    if (actor.workspaceMode !== 'sandbox') {
      throw new DomainError('forbidden', 'SANDBOX_ONLY', 'Test helpers work in sandbox workspaces only.');
    }
    const verificationType = typeOf(input.verificationType);
    const status = input.status === undefined ? 'pending' : statusOf(input.status);
    const now = this.clock.now();
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt && expiresAt <= now) throw invalidParameter('expires_at', 'OUT_OF_RANGE', 'expires_at must be in the future.');
    const customers = isUuid(input.customerId)
      ? await this.txHost.tx.query(`SELECT 1 FROM customers WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          input.customerId,
        ])
      : [];
    if (customers.length === 0) {
      throw new DomainError('not_found', 'CUSTOMER_NOT_FOUND', 'No such customer.', { param: 'customer_id' });
    }
    const { reference } = await this.sandbox.openCheck();
    const { verification, change } = CustomerVerification.open(
      {
        organizationId: actor.organizationId,
        workspaceId: actor.workspaceId,
        customerId: input.customerId,
        verificationType,
        provider: this.sandbox.name,
        providerReference: reference,
        report: this.sandbox.report(reference, sandboxStatusOf(status), expiresAt, verificationType),
      },
      'test_helper',
      now,
    );
    await this.verifications.insert(verification);
    await this.lifecycle.changed(verification, change, actor, { verification_type: verificationType });
    return verificationView(verification);
  }
}

@QueryHandler(GetVerificationQuery)
export class GetVerificationHandler implements IQueryHandler<GetVerificationQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, verificationId }: GetVerificationQuery): Promise<VerificationView> {
    const rows: VerificationRow[] = isUuid(verificationId)
      ? await this.dataSource.query(
          `SELECT ${VERIFICATION_COLUMNS} FROM customer_verifications WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, verificationId],
        )
      : [];
    if (!rows[0]) throw verificationNotFound();
    return verificationView(CustomerVerification.restore(toVerificationState(rows[0])));
  }
}

interface SummaryRow {
  id: string;
  customer_id: string;
  status: VerificationStatus;
  verification_type: VerificationType;
  created_at: Date;
}

@QueryHandler(ListVerificationsQuery)
export class ListVerificationsHandler implements IQueryHandler<ListVerificationsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  /** Newest first; only the filters given reach the SQL, so each is served by its own index. */
  async execute({ actor, limit, cursor, filters }: ListVerificationsQuery) {
    const page = await keysetPage<SummaryRow>(
      this.cursors,
      {
        list: 'customer_verifications',
        filters: {
          customer_id: filters.customerId ?? null,
          status: filters.status ?? null,
          verification_type: filters.verificationType ?? null,
          occurred_after: filters.occurredAfter?.toISOString() ?? null,
          occurred_before: filters.occurredBefore?.toISOString() ?? null,
        },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) => {
        const values: unknown[] = [actor.organizationId, actor.workspaceId];
        const conditions = ['organization_id = $1', 'workspace_id = $2'];
        const where = (condition: (placeholder: string) => string, value: unknown) => {
          values.push(value);
          conditions.push(condition(`$${values.length}`));
        };
        if (filters.customerId) where((p) => `customer_id = ${p}::uuid`, filters.customerId);
        if (filters.status) where((p) => `status = ${p}`, filters.status);
        if (filters.verificationType) where((p) => `verification_type = ${p}`, filters.verificationType);
        if (filters.occurredAfter) where((p) => `created_at >= ${p}::timestamptz`, filters.occurredAfter);
        if (filters.occurredBefore) where((p) => `created_at < ${p}::timestamptz`, filters.occurredBefore);
        if (after) {
          values.push(after[0], after[1]);
          conditions.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
        }
        values.push(rows);
        return this.dataSource.query(
          `SELECT id, customer_id, status, verification_type, created_at FROM customer_verifications
            WHERE ${conditions.join(' AND ')}
            ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
          values,
        );
      },
      newestFirstPosition,
    );
    const data: VerificationSummaryView[] = page.data.map((row) => ({
      id: row.id,
      customerId: row.customer_id,
      status: row.status,
      verificationType: row.verification_type,
      createdAt: row.created_at,
    }));
    return { ...page, data };
  }
}
