import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  AuditActor,
  AuditLog,
  Clock,
  DomainError,
  JobQueue,
  JobTenant,
  jobTenantOf,
  EventLog,
  Outbox,
  workspaceModeOf,
} from '@app/shared-kernel';
import { CustomerVerification, CustomerVerificationUpdated, StatusChange } from '../../domain/customer-verification';
import { CustomerVerificationRepository } from '../../domain/customer-verification.repository';
import type { VerificationKey } from '../../domain/customer-verification.repository';
import { VerificationProvider } from '../../domain/verification-provider';
import { verificationResponse } from './verification-response';
import { VerificationView } from './verification.view';
import { IdentityErrors } from '../../domain/identity-errors';

export const EXPIRE_VERIFICATION_JOB = 'identity.expire-verification';
export const RETRY_VERIFICATION_JOB = 'identity.retry-verification';
const RETRY_MARGIN_MS = 250;
const SYSTEM = { type: 'system', id: null };

export function verificationNotFound(param = 'id'): DomainError {
  return IdentityErrors.VERIFICATION_NOT_FOUND.create('No such customer verification.', { param });
}

/** A verification job's data: its key and its workspace's mode (absent in jobs queued before fair scheduling). */
type VerificationJob = VerificationKey & { workspaceMode?: JobTenant['workspaceMode'] };

export function keyOf(verification: CustomerVerification): VerificationKey {
  const { organizationId, workspaceId, id } = verification.snapshot;
  return { organizationId, workspaceId, verificationId: id };
}

export function verificationView(verification: CustomerVerification): VerificationView {
  const state = verification.snapshot;
  return {
    id: state.id,
    customerId: state.customerId,
    status: state.status,
    verificationType: state.verificationType,
    createdAt: state.createdAt,
    provider: state.provider,
    providerReference: state.providerReference,
    providerResult: state.providerResult === null ? null : (JSON.parse(state.providerResult) as unknown),
    updatedAt: state.updatedAt,
    completedAt: state.completedAt,
    expiresAt: state.expiresAt,
  };
}

/** The adapters whose webhooks arrive at POST /v1/webhooks/verifications/{name}. */
export class VerificationProviders {
  constructor(private readonly providers: readonly VerificationProvider[]) {}

  named(name: string): VerificationProvider | undefined {
    return this.providers.find((provider) => provider.name === name);
  }
}

/**
 * What follows every status change, in its transaction: the `customer_verification.updated`
 * outbox event, the audit row (the request's principal, or the system for the lifecycle), and the
 * jobs time will need (the expiry of a verified check at `expires_at`, the next retry of a
 * provider outage). Also the two jobs themselves.
 */
@Injectable()
export class VerificationLifecycle implements OnModuleInit {
  constructor(
    private readonly verifications: CustomerVerificationRepository,
    private readonly providers: VerificationProviders,
    private readonly jobs: JobQueue,
    private readonly outbox: Outbox,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly events: EventLog,
  ) {}

  onModuleInit(): void {
    this.jobs.define<VerificationJob>({ name: EXPIRE_VERIFICATION_JOB, handler: (job) => this.expire(job) });
    this.jobs.define<VerificationJob>({ name: RETRY_VERIFICATION_JOB, handler: (job) => this.retry(job) });
  }

  /** Call after saving a change; `actor` is the request's principal (admin, test helper), else the system acted. */
  async changed(
    verification: CustomerVerification,
    change: StatusChange,
    actor?: AuditActor,
    data: Record<string, unknown> = {},
  ): Promise<void> {
    const state = verification.snapshot;
    await this.outbox.add(
      new CustomerVerificationUpdated(
        state.organizationId,
        state.workspaceId,
        state.id,
        state.customerId,
        state.verificationType,
        change.from,
        change.to,
        change.source,
        change.at.toISOString(),
      ),
      state.organizationId,
    );
    const action = {
      admin: 'customer_verification.status_overridden',
      test_helper: 'customer_verification.created',
      provider: 'customer_verification.status_changed',
      expiry: 'customer_verification.status_changed',
      retry: 'customer_verification.status_changed',
    }[change.source];
    await this.audit.record(
      actor ?? { organizationId: state.organizationId, workspaceId: state.workspaceId, principal: SYSTEM },
      {
        action,
        resourceType: 'customer_verification',
        resourceId: state.id,
        data: { customer_id: state.customerId, from: change.from, to: change.to, source: change.source, ...data },
      },
    );
    await this.scheduleFor(verification);
    const object = verificationResponse(verificationView(verification));
    await this.events.publish(
      state,
      change.source === 'test_helper'
        ? [{ type: 'customer_verification.created', object }]
        : [{ type: 'customer_verification.updated', object, previousAttributes: { status: change.from } }],
    );
  }

  /** The job time needs next for this record, if any (sent in the caller's transaction). */
  async scheduleFor(verification: CustomerVerification): Promise<void> {
    const state = verification.snapshot;
    const expires = state.status === 'verified' && state.expiresAt;
    const retries = state.status === 'maintenance' && state.nextRetryAt;
    if (!expires && !retries) return;
    const job: VerificationJob = { ...keyOf(verification), workspaceMode: await workspaceModeOf(this.txHost.tx, state) };
    if (expires) await this.jobs.send(EXPIRE_VERIFICATION_JOB, jobTenantOf(job), job, { startAfter: expires });
    if (retries) await this.jobs.send(RETRY_VERIFICATION_JOB, jobTenantOf(job), job, { startAfter: retries });
  }

  /** A verified check lapses at `expires_at`; run early (another clock) it tries again just after. */
  @Transactional()
  async expire(key: VerificationJob): Promise<void> {
    const verification = await this.verifications.lock(key);
    if (!verification) return;
    const now = this.clock.now();
    const change = verification.expire(now);
    if (!change) {
      const { status, expiresAt } = verification.snapshot;
      if (status === 'verified' && expiresAt && expiresAt > now) {
        const retryAt = new Date(expiresAt.getTime() + RETRY_MARGIN_MS);
        await this.jobs.send(EXPIRE_VERIFICATION_JOB, jobTenantOf(key), key, { startAfter: retryAt });
      }
      return;
    }
    await this.verifications.update(verification);
    await this.changed(verification, change);
  }

  /**
   * Asks the provider again about a check in an outage. Its answer applies as any result would;
   * still unavailable, the next retry follows the backoff (5, 10, 20, 40, 60 minutes), and after
   * the last the record stays in maintenance for an admin to decide.
   */
  @Transactional()
  async retry(key: VerificationJob): Promise<void> {
    const verification = await this.verifications.lock(key);
    if (!verification) return;
    const now = this.clock.now();
    if (!verification.retryDue(now)) {
      const { status, nextRetryAt } = verification.snapshot;
      if (status === 'maintenance' && nextRetryAt && nextRetryAt > now) {
        const retryAt = new Date(nextRetryAt.getTime() + RETRY_MARGIN_MS);
        await this.jobs.send(RETRY_VERIFICATION_JOB, jobTenantOf(key), key, { startAfter: retryAt });
      }
      return;
    }
    const provider = this.providers.named(verification.snapshot.provider);
    if (!provider) throw new Error(`No verification provider named ${verification.snapshot.provider} is configured`);
    const report = await provider.fetchResult(verification.snapshot.providerReference);
    const { change } = verification.recordProviderResult(report, 'retry', now);
    if (verification.snapshot.status === 'maintenance') verification.noteStillUnavailable(now);
    await this.verifications.update(verification);
    if (change) await this.changed(verification, change, undefined, { retry: true });
    else await this.scheduleFor(verification);
  }
}
