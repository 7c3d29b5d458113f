import { Transactional } from '@nestjs-cls/transactional';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter, newId, SharedErrors } from '@app/shared-kernel';
import { ApiKey, grantableKeyTypes, KeyType, Minter, UNLIMITED_MINTER } from '../../domain/api-key';
import { normalizeEmail } from '../../domain/email';
import { assertAcceptablePassword, hashPassword } from '../../domain/password';
import { ApiKeyRepository, OrganizationRepository, WorkspaceRepository } from '../../domain/repositories';
import { ALL_SCOPES } from '../../domain/scopes';
import { Workspace } from '../../domain/workspace';
import { BootstrapOrganizationCommand, BootstrapResult } from './bootstrap-organization.command';

const SYSTEM: Minter = {
  type: 'system',
  id: null,
  scopes: new Set<string>(ALL_SCOPES),
  keyTypes: grantableKeyTypes('live'),
  ...UNLIMITED_MINTER,
};

@CommandHandler(BootstrapOrganizationCommand)
export class BootstrapOrganizationHandler implements ICommandHandler<BootstrapOrganizationCommand> {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly keys: ApiKeyRepository,
    private readonly audit: AuditLog,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ name, owner }: BootstrapOrganizationCommand): Promise<BootstrapResult> {
    const now = this.clock.now();
    const organizationName = name.trim();
    if (organizationName.length === 0 || organizationName.length > 200) {
      throw invalidParameter('organization', 'OUT_OF_RANGE', 'The organization name must be 1 to 200 characters.');
    }
    const organizationId = newId();
    await this.organizations.insert({ id: organizationId, name: organizationName, createdAt: now });
    const live = Workspace.open({ organizationId, name: 'Live', slug: 'live', mode: 'live', isDefault: true, now });
    const sandbox = Workspace.open({ organizationId, name: 'Sandbox', slug: 'sandbox', mode: 'sandbox', isDefault: true, now });
    await this.workspaces.insert(live);
    await this.workspaces.insert(sandbox);
    const userId = owner ? await this.createOwner(organizationId, owner, now) : null;
    const liveKey = await this.mintRootKey(organizationId, 'Root key', 'sk_live', now);
    const sandboxKey = await this.mintRootKey(organizationId, 'Sandbox root key', 'sk_test', now);
    await this.audit.record(
      { organizationId, workspaceId: null, principal: { type: 'system', id: null } },
      {
        action: 'organization.bootstrapped',
        resourceType: 'organization',
        resourceId: organizationId,
        data: { root_key_id: liveKey.id, sandbox_root_key_id: sandboxKey.id },
      },
    );
    return {
      organization_id: organizationId,
      workspaces: [live, sandbox].map((workspace) => ({
        id: workspace.snapshot.id,
        slug: workspace.snapshot.slug,
        mode: workspace.snapshot.mode,
      })),
      user_id: userId,
      api_key: liveKey,
      sandbox_api_key: sandboxKey,
    };
  }

  /** A root key of one type holding every scope; its secret leaves only in the result. */
  private async mintRootKey(
    organizationId: string,
    name: string,
    keyType: KeyType,
    now: Date,
  ): Promise<{ id: string; secret: string }> {
    const { key, secret } = ApiKey.mint({
      organizationId,
      name,
      scopes: [...ALL_SCOPES],
      keyType,
      minter: SYSTEM,
      now,
    });
    await this.keys.insert(key);
    return { id: key.id, secret };
  }

  private async createOwner(organizationId: string, owner: { email: string; password: string }, now: Date): Promise<string> {
    const email = normalizeEmail(owner.email);
    assertAcceptablePassword(owner.password);
    const id = newId();
    const inserted = await this.txHost.tx.query(
      `INSERT INTO users (organization_id, id, email, password_hash, role, created_at)
       VALUES ($1, $2, $3, $4, 'owner', $5) ON CONFLICT (organization_id, email) DO NOTHING RETURNING id`,
      [organizationId, id, email, await hashPassword(owner.password), now],
    );
    if (inserted.length === 0)
      throw SharedErrors.ALREADY_EXISTS.create('A user with this email already exists.', { param: 'email' });
    return id;
  }
}
