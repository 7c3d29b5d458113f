import { Workspace } from '../../domain/workspace';

/**
 * The read side of workspaces (GET /v1/workspaces), outside any transaction: keyset pages newest
 * first, `(created_at, id)` descending. A port (also the DI token); the module binds the adapter
 * (infrastructure/typeorm-workspace.reads.ts).
 */
export abstract class WorkspaceReads {
  /** Up to `limit` workspaces of the organization after `after` (a position `[created_at, id]`, undefined: from the newest). */
  abstract list(organizationId: string, after: unknown[] | undefined, limit: number): Promise<Workspace[]>;
}
