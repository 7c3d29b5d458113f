import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock, SharedErrors } from '@app/shared-kernel';
import { CustomerVerificationRepository } from '../../domain/customer-verification.repository';
import { VerificationLifecycle, verificationNotFound, VerificationProviders } from './verification-lifecycle';
import { ProcessVerificationWebhookCommand } from './process-verification-webhook.command';

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
    if (!provider) throw SharedErrors.UNKNOWN_PROVIDER.create(`No verification provider named ${name}.`);
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
