import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '@app/shared-kernel';
import { CustomerVerificationRepository } from '../../domain/customer-verification.repository';
import { VerificationLifecycle, verificationNotFound, verificationView } from './verification-lifecycle';
import { OverrideVerificationStatusCommand } from './override-verification-status.command';
import { VerificationView } from './verification.view';
import { statusOf } from './verification-input';

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
