import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock, invalidParameter, isUuid, SharedErrors } from '@app/shared-kernel';
import { CustomerVerification } from '../../domain/customer-verification';
import { CustomerVerificationRepository } from '../../domain/customer-verification.repository';
import { SandboxChecks } from './sandbox-checks';
import { VerificationLifecycle, verificationView } from './verification-lifecycle';
import { CreateSandboxVerificationCommand } from './create-sandbox-verification.command';
import { VerificationView } from './verification.view';
import { statusOf, typeOf } from './verification-input';

@CommandHandler(CreateSandboxVerificationCommand)
export class CreateSandboxVerificationHandler implements ICommandHandler<CreateSandboxVerificationCommand> {
  constructor(
    private readonly sandbox: SandboxChecks,
    private readonly verifications: CustomerVerificationRepository,
    private readonly lifecycle: VerificationLifecycle,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /** Sandbox workspaces only, as Stripe's test helpers: the sandbox provider opens the check in the status asked. */
  @Transactional()
  async execute({ actor, input }: CreateSandboxVerificationCommand): Promise<VerificationView> {
    if (actor.workspaceMode !== 'sandbox') {
      throw SharedErrors.SANDBOX_ONLY.create('Test helpers work in sandbox workspaces only.');
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
      throw SharedErrors.CUSTOMER_NOT_FOUND.create('No such customer.', { param: 'customer_id' });
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
        report: this.sandbox.reportIn(reference, status, expiresAt, verificationType),
      },
      'test_helper',
      now,
    );
    await this.verifications.insert(verification);
    await this.lifecycle.changed(verification, change, actor, { verification_type: verificationType });
    return verificationView(verification);
  }
}
