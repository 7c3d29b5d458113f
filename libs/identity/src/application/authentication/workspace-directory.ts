import { Injectable, OnModuleInit } from '@nestjs/common';
import { isUuid, PgNotifications } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { workspaceNotFound, WorkspaceMode, WorkspaceSettings } from '../../domain/workspace';
import { IDENTITY_CHANGES_CHANNEL } from './identity-changes';
import { IdentityErrors } from '../../domain/identity-errors';

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
    if (cached && performance.now() - cached.loadedAt < MAX_AGE_MS) return cached.entries;
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
    this.cache.set(organizationId, { loadedAt: performance.now(), entries });
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
    // UUIDs are case-insensitive (PostgreSQL agrees): an upper-case id of one's own workspace is not another's.
    const matches = (entry: WorkspaceEntry) => entry.id === reference.toLowerCase() || entry.slug === reference;
    const found = entries.find(matches) ?? (await this.reload(organizationId)).find(matches);
    if (found) return found;
    if (isUuid(reference) && (await this.belongsToAnotherOrganization(reference, organizationId))) {
      throw IdentityErrors.WORKSPACE_FORBIDDEN.create('This workspace belongs to another organization.', {
        param: 'X-Workspace-Id',
      });
    }
    throw workspaceNotFound();
  }

  /**
   * A miss may only mean the cache predates a workspace created a moment ago (its NOTIFY is
   * still on its way): misses look again in the database before refusing.
   */
  private reload(organizationId: string): Promise<WorkspaceEntry[]> {
    this.cache.delete(organizationId);
    return this.list(organizationId);
  }

  evict(organizationId: string): void {
    this.cache.delete(organizationId);
  }

  private async belongsToAnotherOrganization(id: string, organizationId: string): Promise<boolean> {
    const rows = await this.dataSource.query('SELECT 1 FROM workspaces WHERE id = $1 AND organization_id <> $2', [
      id,
      organizationId,
    ]);
    return rows.length > 0;
  }
}
