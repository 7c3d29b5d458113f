import { Actor } from '@app/shared-kernel';
import { VersionReadRow } from './product-reads';

/**
 * The read side of product versions (GET a version, a product's versions, its staged draft), in
 * the request's transaction when there is one: each row with its queue rank (a scheduled version)
 * and its materialized costs. A port (also the DI token); the module binds the adapter
 * (infrastructure/typeorm-product-version.reads.ts).
 */
export abstract class ProductVersionReads {
  /** The workspace's product version; undefined when there is none. `versionId` is a UUID. */
  abstract find(actor: Actor, versionId: string): Promise<VersionReadRow | undefined>;

  /** Up to `limit` versions of the product, newest first, below `after` (a position `[version]`, undefined: from the newest). */
  abstract list(actor: Actor, productId: string, after: unknown[] | undefined, limit: number): Promise<VersionReadRow[]>;

  /** The versions of `ids` (the draft and the head) and the draft's base, those that exist. */
  abstract draftWithBase(actor: Actor, ids: string[], draftVersionId: string): Promise<VersionReadRow[]>;
}
