import { Hold } from '../../domain/hold';

/** The workspace a read is confined to. */
export interface HoldScope {
  organizationId: string;
  workspaceId: string;
}

/**
 * The read side of holds (GET one, list the pending ones), outside any transaction. A port (also the
 * DI token); the module binds the adapter (infrastructure/typeorm-hold.reads.ts).
 */
export abstract class HoldReads {
  /** The wallet's hold of this workspace; undefined when there is none. Both ids are UUIDs. */
  abstract find(scope: HoldScope, walletId: string, holdId: string): Promise<Hold | undefined>;

  /** The wallet's pending holds, newest first. */
  abstract listPending(scope: HoldScope, walletId: string): Promise<Hold[]>;
}
