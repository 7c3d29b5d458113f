import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainError, isUuid, PgNotifications } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { workspaceNotFound, WorkspaceMode, WorkspaceSettings } from '../../domain/workspace';
import { IDENTITY_CHANGES_CHANNEL } from './identity-changes';

export interface WorkspaceEntry {
  id: string;
  slug: string;
  mode: WorkspaceMode;
  isDefault: boolean;
  settings: WorkspaceSettings;
}

const MAX_AGE_MS = 60_000;

/**
 * Each organization's workspaces, cached in process (a handful per organization) so that
 * resolving X-Workspace-Id costs no query; committed changes evict through NOTIFY.
 */
@Injectable()
export class WorkspaceDirectory implements OnModuleInit {
  private readonly cache = new Map<string, { loadedAt: number; entries: WorkspaceEntry[] }>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifications: PgNotifications,
  ) {}

  onModuleInit(): void {
    this.notifications.subscribe(IDENTITY_CHANGES_CHANNEL, {
      onNotification: (payload) => {
        if (payload.startsWith('workspaces:')) this.cache.delete(payload.slice('workspaces:'.length));
      },
      onResubscribe: () => this.cache.clear(),
    });
  }

  async list(organizationId: string): Promise<WorkspaceEntry[]> {
    const cached = this.cache.get(organizationId);
    if (cached && Date.now() - cached.loadedAt < MAX_AGE_MS) return cached.entries;
    const rows: Array<{
      id: string;
      slug: string;
      mode: WorkspaceMode;
      is_default: boolean;
      settings: Partial<WorkspaceSettings>;
    }> = await this.dataSource.query('SELECT id, slug, mode, is_default, settings FROM workspaces WHERE organization_id = $1', [
      organizationId,
    ]);
    const entries = rows.map((row) => ({
      id: row.id,
      slug: row.slug,
      mode: row.mode,
      isDefault: row.is_default,
      settings: { approval_required_for: row.settings.approval_required_for ?? [] },
    }));
    this.cache.set(organizationId, { loadedAt: Date.now(), entries });
    return entries;
  }

  /** By UUID or slug; omitted selects the organization's default workspace of that mode. */
  async resolve(organizationId: string, reference: string | undefined, defaultMode: WorkspaceMode): Promise<WorkspaceEntry> {
    const entries = await this.list(organizationId);
    if (reference === undefined) {
      const fallback = entries.find((entry) => entry.isDefault && entry.mode === defaultMode);
      if (!fallback) throw workspaceNotFound();
      return fallback;
    }
    const found = entries.find((entry) => entry.id === reference || entry.slug === reference);
    if (found) return found;
    if (isUuid(reference) && (await this.belongsToAnotherOrganization(reference))) {
      throw new DomainError('forbidden', 'WORKSPACE_FORBIDDEN', 'This workspace belongs to another organization.', {
        param: 'X-Workspace-Id',
      });
    }
    throw workspaceNotFound();
  }

  evict(organizationId: string): void {
    this.cache.delete(organizationId);
  }

  private async belongsToAnotherOrganization(id: string): Promise<boolean> {
    const rows = await this.dataSource.query('SELECT 1 FROM workspaces WHERE id = $1', [id]);
    return rows.length > 0;
  }
}
