import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import type { RenderAllowance } from './render-budget';

export interface ThumbnailResult {
  etag: string;
  /** Null when `If-None-Match` already names the current ETag (304). */
  svg: string | null;
  /** Null when nothing was rendered (304, cache) or the render budget is off. */
  rateLimit: RenderAllowance | null;
}

export class TemplateThumbnailQuery extends Query<ThumbnailResult> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly ifNoneMatch: string | undefined,
  ) {
    super();
  }
}
