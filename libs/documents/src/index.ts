export * from './documents.module';
export {
  ClearDefaultTemplateCommand,
  CopyTemplateCommand,
  CreateTemplateCommand,
  DeleteTemplateCommand,
  GetTemplateQuery,
  ListEmailKindsQuery,
  ListTemplatesQuery,
  MarkDefaultTemplateCommand,
  PREVIEW_FORMATS,
  PreviewTemplateQuery,
  ResolveTemplateQuery,
  TEMPLATE_SORTS,
  TemplateThumbnailQuery,
  UpdateTemplateCommand,
} from './application/template.commands';
export type { RenderAllowance } from './application/render-budget';
export type {
  PreviewFormat,
  PreviewResult,
  TemplateCounts,
  TemplateView,
  ThumbnailResult,
} from './application/template.commands';
export { DOCUMENT_TYPES, PRINTED_DOCUMENT_TYPES, TEMPLATE_STATUSES } from './domain/document-template';
export type { DocumentType, PrintedDocumentType, TemplateStatus } from './domain/document-template';
export { EMAIL_KINDS, LOCALES, negotiateLocale, emailKind } from './domain/email-kinds';
export type { EmailKind, Locale } from './domain/email-kinds';
export { CURRENT_SCHEMA_VERSION, FONT_FAMILIES, TEMPLATE_SCHEMA_V2 } from './domain/template-document';
export { SYSTEM_TEMPLATE_IDS, SYSTEM_TEMPLATES } from './domain/system-templates';
export { templateResponse } from './application/template-response';
export { matchesEtag } from './application/preview.handlers';
export { documentsMigrations } from './infrastructure/migrations';
