import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import type { RenderAllowance } from './render-budget';

export const PREVIEW_FORMATS = ['pdf', 'html', 'text'] as const;
export type PreviewFormat = (typeof PREVIEW_FORMATS)[number];

export interface PreviewInput {
  documentType?: string;
  documentTypes?: unknown;
  document?: unknown;
}

export interface PreviewResult {
  body: Buffer;
  contentType: string;
  cacheHit: boolean;
  rateLimit: RenderAllowance | null;
}

export class PreviewTemplateQuery extends Query<PreviewResult> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly input: PreviewInput,
    readonly format: PreviewFormat,
  ) {
    super();
  }
}
