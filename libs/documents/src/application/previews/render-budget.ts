import { Injectable } from '@nestjs/common';
import { RateLimitCounter, SharedErrors } from '@app/shared-kernel';
import { DocumentsOptions } from '../documents-options';

export interface RenderAllowance {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * The organization's render budget (PDF_PREVIEW_RATE_LIMIT_PER_MINUTE), shared by every instance:
 * each preview and each thumbnail that has to be rendered spends one. Null when the limit is off.
 */
@Injectable()
export class RenderBudget {
  constructor(
    private readonly counter: RateLimitCounter,
    private readonly options: DocumentsOptions,
  ) {}

  async spend(organizationId: string): Promise<RenderAllowance | null> {
    const limit = this.options.previewRateLimitPerMinute;
    if (limit <= 0) return null;
    const { hits, resetSeconds } = await this.counter.hit(organizationId, 'pdf_preview');
    if (hits > limit) {
      throw SharedErrors.RATE_LIMITED.create(
        `Render rate limit of ${limit} per minute per organization (previews and thumbnails) exceeded.`,
        { details: { retry_after_seconds: resetSeconds, limit, scope: 'organization' } },
      );
    }
    return { limit, remaining: limit - hits, resetSeconds };
  }
}
