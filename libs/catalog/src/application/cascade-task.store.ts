import { DomainError } from '@app/shared-kernel';
import { CreatedBy } from '../domain/version-line';

/** One task of a cascade run: a product or a plan to republish. */
export interface CascadeTaskKey {
  organizationId: string;
  workspaceId: string;
  runId: string;
  subjectKind: 'product' | 'plan';
  subjectId: string;
}

/** The run a pending task belongs to, as its task needs it. */
export interface CascadeRunOfTask {
  id: string;
  trigger: string;
  source_id: string;
  source_version_id: string;
  source_version: number;
  status: string;
  created_by: CreatedBy;
}

/**
 * The task rows product and plan cascades share: lock, count an attempt, finish. A port (also the
 * DI token); the module binds the adapter (infrastructure/typeorm-cascade-task.store.ts).
 */
export abstract class CascadeTaskStore {
  /** The pending task, locked, with its run; undefined when it already finished (a rerun does nothing). */
  abstract lock(key: CascadeTaskKey): Promise<CascadeRunOfTask | undefined>;

  /** Counts a failed attempt; the task's attempts so far (`fallback` when the task is gone). */
  abstract countAttempt(key: CascadeTaskKey, fallback: number): Promise<number>;

  abstract finish(
    key: CascadeTaskKey,
    status: 'republished' | 'unchanged' | 'errored',
    version: { id: string; version: number } | null | undefined,
    error?: DomainError,
  ): Promise<void>;
}
