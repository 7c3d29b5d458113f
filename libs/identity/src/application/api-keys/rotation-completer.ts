import { Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { AuditLog, Clock, JobQueue } from '@app/shared-kernel';
import { ApiKey } from '../../domain/api-key';
import { ApiKeyRepository } from '../../domain/repositories';
import { CredentialChanges } from '../authentication/credential-changes';

export const COMPLETE_ROTATION_JOB = 'api_keys.complete-rotation';

/** Ends a rotation's grace: the old key is revoked for good when its `revokes_at` comes. */
@Injectable()
export class RotationCompleter implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly credentials: CredentialChanges,
  ) {}

  onModuleInit(): void {
    this.jobs.define<{ organizationId: string; apiKeyId: string }>({
      name: COMPLETE_ROTATION_JOB,
      handler: ({ organizationId, apiKeyId }) => this.complete(organizationId, apiKeyId),
    });
  }

  @Transactional()
  async complete(organizationId: string, apiKeyId: string): Promise<void> {
    const key: ApiKey | undefined = await this.keys.findForUpdate(organizationId, apiKeyId);
    if (!key || !key.completeRotation(this.clock.now())) return;
    await this.keys.save(key);
    await this.credentials.apiKeyChanged(apiKeyId);
    await this.audit.record(
      { organizationId, workspaceId: null, principal: { type: 'system', id: null } },
      { action: 'api_key.rotation_completed', resourceType: 'api_key', resourceId: apiKeyId },
    );
  }
}
