import { invalidParameter, newId, SharedErrors } from '@app/shared-kernel';

import { CreatedBy } from './version-line';

export const MIGRATION_MODES = ['PREVIEW', 'IMMEDIATE', 'SCHEDULED'] as const;
export type MigrationMode = (typeof MIGRATION_MODES)[number];
export const PRORATION_STRATEGIES = ['create_prorations', 'none', 'always_invoice'] as const;
export type ProrationStrategy = (typeof PRORATION_STRATEGIES)[number];
export const OUTCOME_STATUSES = ['pending', 'moved', 'skipped', 'failed'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];
export const SKIP_REASONS = ['ALREADY_ON_TARGET', 'NOT_ACTIVE', 'CADENCE_MISMATCH', 'PIN_NOT_IN_TARGET', 'SUPERSEDED'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
export type MigrationStatus = 'scheduled' | 'running' | 'completed' | 'canceled';

/** What a migrate request asks for, checked on its own (every refusal a 400 VALIDATION_ERROR). */
export interface MigrateRequest {
  mode: MigrationMode;
  targetVersion: number;
  prorationStrategy: ProrationStrategy;
  scheduledAt: Date | null;
}

/** Model §4.8: mode case-insensitive, target a positive integer, scheduled_at with SCHEDULED only and in the future. */
export function migrateRequest(
  input: { mode: unknown; targetVersion: unknown; prorationStrategy?: unknown; scheduledAt?: Date },
  now: Date,
): MigrateRequest {
  const mode = typeof input.mode === 'string' ? input.mode.toUpperCase() : undefined;
  if (!(MIGRATION_MODES as readonly (string | undefined)[]).includes(mode)) {
    throw invalidParameter('mode', 'INVALID_VALUE', `mode must be one of ${MIGRATION_MODES.join(', ')} (any case).`);
  }
  const target = input.targetVersion;
  if (typeof target !== 'number' || !Number.isSafeInteger(target) || target < 1) {
    throw invalidParameter('target_version', 'INVALID_VALUE', 'target_version must be a positive integer.');
  }
  const strategy = input.prorationStrategy ?? 'create_prorations';
  if (!(PRORATION_STRATEGIES as readonly unknown[]).includes(strategy)) {
    throw invalidParameter(
      'proration_strategy',
      'INVALID_VALUE',
      `proration_strategy must be one of ${PRORATION_STRATEGIES.join(', ')}.`,
    );
  }
  if (mode === 'SCHEDULED') {
    if (!input.scheduledAt) throw invalidParameter('scheduled_at', 'REQUIRED', 'scheduled_at is required with mode SCHEDULED.');
    if (input.scheduledAt.getTime() <= now.getTime())
      throw invalidParameter('scheduled_at', 'OUT_OF_RANGE', 'scheduled_at must be in the future.');
  } else if (input.scheduledAt !== undefined) {
    throw invalidParameter('scheduled_at', 'MUTUALLY_EXCLUSIVE', 'scheduled_at is valid only with mode SCHEDULED.');
  }
  return {
    mode: mode as MigrationMode,
    targetVersion: target,
    prorationStrategy: strategy as ProrationStrategy,
    scheduledAt: input.scheduledAt ?? null,
  };
}

export interface PlanMigrationState {
  organizationId: string;
  workspaceId: string;
  id: string;
  planId: string;
  trigger: 'manual' | 'publish';
  mode: 'IMMEDIATE' | 'SCHEDULED';
  targetVersionId: string;
  targetVersion: number;
  prorationStrategy: ProrationStrategy;
  scheduledAt: Date | null;
  status: MigrationStatus;
  createdBy: CreatedBy;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
  canceledAt: Date | null;
}

/**
 * A move of a plan's subscribers to one version that went live, with one outcome per
 * subscription in scope (kept by the repository, set-based). IMMEDIATE and publish-triggered
 * migrations start running at once; a SCHEDULED one waits for scheduled_at and may be canceled
 * until it starts.
 */
export class PlanMigration {
  private constructor(private state: PlanMigrationState) {}

  static restore(state: PlanMigrationState): PlanMigration {
    return new PlanMigration({ ...state });
  }

  static request(input: {
    organizationId: string;
    workspaceId: string;
    planId: string;
    trigger: 'manual' | 'publish';
    mode: 'IMMEDIATE' | 'SCHEDULED';
    target: { id: string; version: number };
    prorationStrategy: ProrationStrategy;
    scheduledAt: Date | null;
    createdBy: CreatedBy;
    now: Date;
  }): PlanMigration {
    const scheduled = input.mode === 'SCHEDULED';
    return new PlanMigration({
      organizationId: input.organizationId,
      workspaceId: input.workspaceId,
      id: newId(),
      planId: input.planId,
      trigger: input.trigger,
      mode: input.mode,
      targetVersionId: input.target.id,
      targetVersion: input.target.version,
      prorationStrategy: input.prorationStrategy,
      scheduledAt: scheduled ? input.scheduledAt : null,
      status: scheduled ? 'scheduled' : 'running',
      createdBy: input.createdBy,
      createdAt: input.now,
      startedAt: scheduled ? null : input.now,
      completedAt: null,
      canceledAt: null,
    });
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<PlanMigrationState> {
    return this.state;
  }

  /** When its outcomes take effect: scheduled_at for a scheduled migration, else its creation. */
  get effectiveAt(): Date {
    return this.state.scheduledAt ?? this.state.createdAt;
  }

  isDue(now: Date): boolean {
    return this.state.status === 'scheduled' && this.state.scheduledAt!.getTime() <= now.getTime();
  }

  /** A scheduled migration whose time came: its outcomes are built now (by the caller). */
  start(now: Date): void {
    if (this.state.status !== 'scheduled') throw this.refusal('running');
    this.state = { ...this.state, status: 'running', startedAt: now };
  }

  cancel(now: Date): void {
    if (this.state.status !== 'scheduled') throw this.refusal('canceled');
    this.state = { ...this.state, status: 'canceled', canceledAt: now };
  }

  private refusal(to: MigrationStatus) {
    return SharedErrors.INVALID_STATUS_TRANSITION.create(
      `A migration that is ${this.state.status} cannot become ${to}; only a scheduled one that has not started can.`,
      {
        details: { from: this.state.status, to, allowed: this.state.status === 'scheduled' ? ['running', 'canceled'] : [] },
      },
    );
  }
}
