import { ChangeView } from './get-change.query';

/**
 * The read side of changes (GET /v1/changes/{id}), in the request's transaction when there is one.
 * A port (also the DI token); the module binds the adapter (infrastructure/typeorm-change.reads.ts).
 */
export abstract class ChangeReads {
  /** The workspace's change as the API shows it (a pending one with its rank); undefined when there is none. `changeId` is a UUID. */
  abstract find(scope: { organizationId: string; workspaceId: string }, changeId: string): Promise<ChangeView | undefined>;
}
