import { Command, Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { DocumentType, PrintedDocumentType, TemplateState, TemplateStatus } from '../domain/document-template';
import { EmailKind } from '../domain/email-kinds';
import type { RenderAllowance } from './render-budget';

/** A template as the API shows it: its state and the default slots of its workspace it holds. */
export interface TemplateView {
  template: TemplateState;
  defaultFor: PrintedDocumentType[];
}

export interface CreateTemplateInput {
  name: string;
  description?: string | null;
  documentTypes?: unknown;
  anchorKey?: string | null;
  document: unknown;
}

export class CreateTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly input: CreateTemplateInput,
  ) {
    super();
  }
}

export interface UpdateTemplateInput {
  expectedVersion: number;
  name?: string;
  description?: string | null;
  documentTypes?: unknown;
  status?: unknown;
  document?: unknown;
}

export class UpdateTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly input: UpdateTemplateInput,
  ) {
    super();
  }
}

export class DeleteTemplateCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
  ) {
    super();
  }
}

export class CopyTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly name: string | undefined,
  ) {
    super();
  }
}

export class MarkDefaultTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly documentType: string,
  ) {
    super();
  }
}

export class ClearDefaultTemplateCommand extends Command<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
    readonly documentType: string,
  ) {
    super();
  }
}

export class GetTemplateQuery extends Query<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly templateId: string,
  ) {
    super();
  }
}

export const TEMPLATE_SORTS = ['updated_at', 'updated_at:desc', 'updated_at:asc'] as const;

export interface TemplateFilters {
  sort?: string;
  documentType?: string;
  status?: string;
  anchorKey?: string;
  counts?: string;
}

export type TemplateCounts = Record<'all' | DocumentType, number>;

export class ListTemplatesQuery extends Query<Page<TemplateView> & { counts?: { document_type: TemplateCounts } }> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: TemplateFilters,
  ) {
    super();
  }
}

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

export class ListEmailKindsQuery extends Query<readonly EmailKind[]> {}

/**
 * The template a document of this type is rendered with in the caller's workspace: the printed
 * type's default slot, else the system default; for an e-mail kind (`email:<anchor_key>`), the
 * published e-mail template, else the system one. For the contexts that render documents.
 */
export class ResolveTemplateQuery extends Query<TemplateView> {
  constructor(
    readonly actor: Actor,
    readonly documentType: string,
  ) {
    super();
  }
}

export type { TemplateStatus };
