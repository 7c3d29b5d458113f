import { DomainError, invalidParameter, newId } from '@app/shared-kernel';
import { IdentityErrors } from './identity-errors';

export type WorkspaceMode = 'live' | 'sandbox';
export const WORKSPACE_MODES: readonly WorkspaceMode[] = ['live', 'sandbox'];

/** Checkpoints a workspace may require a human approval for. */
export const APPROVAL_CHECKPOINTS = ['wallet.adjust'] as const;
export type ApprovalCheckpoint = (typeof APPROVAL_CHECKPOINTS)[number];

/**
 * Checkpoints that hold regardless of any setting: changing a workspace's approval checkpoints in
 * a way that removes one is itself held for a second human, so the four-eyes control cannot be
 * switched off by the party it controls.
 */
export const WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT = 'workspace.approval_settings';
export const ALWAYS_HELD_CHECKPOINTS: readonly string[] = [WORKSPACE_APPROVAL_SETTINGS_CHECKPOINT];

export interface WorkspaceSettings {
  approval_required_for: ApprovalCheckpoint[];
}

export interface WorkspaceState {
  organizationId: string;
  id: string;
  name: string;
  slug: string;
  mode: WorkspaceMode;
  isDefault: boolean;
  settings: WorkspaceSettings;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function defaultSettings(): WorkspaceSettings {
  return { approval_required_for: [] };
}

export class Workspace {
  /** The version the store holds (as loaded, or as inserted): `save` writes only over it. */
  readonly storedVersion: number;

  private constructor(private state: WorkspaceState) {
    this.storedVersion = state.version;
  }

  static restore(state: WorkspaceState): Workspace {
    return new Workspace(state);
  }

  static open(fields: {
    organizationId: string;
    name: unknown;
    slug: unknown;
    mode: unknown;
    isDefault: boolean;
    now: Date;
  }): Workspace {
    return new Workspace({
      organizationId: fields.organizationId,
      id: newId(),
      name: validName(fields.name),
      slug: validSlug(fields.slug),
      mode: validMode(fields.mode),
      isDefault: fields.isDefault,
      settings: defaultSettings(),
      version: 1,
      createdAt: fields.now,
      updatedAt: fields.now,
    });
  }

  get snapshot(): Readonly<WorkspaceState> {
    return this.state;
  }

  /** Merge-patch: absent or null fields stay as they are. Returns the checkpoints the change removes. */
  update(
    changes: { name?: unknown; settings?: { approval_required_for?: unknown } | null },
    now: Date,
  ): { removedCheckpoints: ApprovalCheckpoint[] } {
    const before = this.state.settings.approval_required_for;
    const next = { ...this.state };
    if (changes.name !== undefined && changes.name !== null) next.name = validName(changes.name);
    const requested = changes.settings?.approval_required_for;
    if (requested !== undefined && requested !== null) {
      next.settings = { ...next.settings, approval_required_for: validCheckpoints(requested) };
    }
    next.updatedAt = now;
    next.version = this.storedVersion + 1;
    this.state = next;
    return { removedCheckpoints: before.filter((checkpoint) => !next.settings.approval_required_for.includes(checkpoint)) };
  }

  requiresApproval(checkpoint: ApprovalCheckpoint): boolean {
    return this.state.settings.approval_required_for.includes(checkpoint);
  }
}

function validName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length === 0 || name.length > 200) throw invalidParameter('name', 'OUT_OF_RANGE', 'name must be 1 to 200 characters.');
  return name;
}

function validSlug(value: unknown): string {
  if (typeof value !== 'string' || !SLUG_PATTERN.test(value) || UUID_LIKE.test(value)) {
    throw invalidParameter('slug', 'INVALID_FORMAT', 'slug must be 1 to 63 lowercase letters, digits or inner hyphens.');
  }
  return value;
}

function validMode(value: unknown): WorkspaceMode {
  if (!WORKSPACE_MODES.includes(value as WorkspaceMode))
    throw invalidParameter('mode', 'INVALID_VALUE', 'mode must be live or sandbox.');
  return value as WorkspaceMode;
}

function validCheckpoints(value: unknown): ApprovalCheckpoint[] {
  if (!Array.isArray(value)) {
    throw invalidParameter('settings.approval_required_for', 'INVALID_TYPE', 'approval_required_for must be an array.');
  }
  value.forEach((checkpoint, index) => {
    if (!APPROVAL_CHECKPOINTS.includes(checkpoint as ApprovalCheckpoint)) {
      throw invalidParameter(
        `settings.approval_required_for[${index}]`,
        'INVALID_VALUE',
        `Unknown checkpoint ${JSON.stringify(checkpoint)}; known: ${APPROVAL_CHECKPOINTS.join(', ')}.`,
      );
    }
  });
  return [...new Set(value as ApprovalCheckpoint[])];
}

export function workspaceNotFound(): DomainError {
  return IdentityErrors.WORKSPACE_NOT_FOUND.create('No such workspace.', { param: 'X-Workspace-Id' });
}
