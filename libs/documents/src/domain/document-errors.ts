import { defineErrors } from '@app/shared-kernel';

/**
 * The documents context's refusals, each declared once (see
 * libs/shared-kernel/src/error-definitions.ts): throw sites create their DomainError from these,
 * and a definition with an `example` is a code the API documents
 * (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const DocumentErrors = defineErrors({
  DOCUMENT_TEMPLATE_NOT_FOUND: { kind: 'not_found', example: 'No such document template.' },
  SYSTEM_TEMPLATE_READ_ONLY: {
    kind: 'conflict',
    example: 'System templates cannot be changed or deleted; copy one to make your own.',
    details: { template_id: '00000000-0000-4000-8000-000000000001' },
  },
  RENDER_LIMIT_EXCEEDED: {
    kind: 'rule_violation',
    example: 'This document would take more than 50 pages to render; shorten its text or use fewer blocks or line breaks.',
    param: 'template_json',
    details: { limit: 50, measure: 'pages' },
  },
  RENDER_BUDGET_EXCEEDED: {
    kind: 'unavailable',
    example: 'The render ran past its time budget of 15000 ms and was stopped.',
    details: { budget: 'time', limit: 15000, retry_after_seconds: 5 },
  },
  NOT_DEFAULT_HOLDER: {
    kind: 'conflict',
    example: "This template is not the workspace's default invoice template.",
    param: 'document_type',
    details: { document_type: 'invoice', holder_template_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d21' },
  },
  DEFAULT_NOT_ALLOWED: {
    kind: 'conflict',
    example: 'This template does not lay out quote documents.',
    param: 'document_type',
    details: { reason: 'document_type_not_in_template', document_type: 'quote', document_types: ['invoice'] },
  },
  ANCHOR_ALREADY_PUBLISHED: {
    kind: 'conflict',
    example: 'Another e-mail template is already published for invoice.finalized; return it to draft or archive it first.',
    param: 'status',
    details: { anchor_key: 'invoice.finalized', template_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d22' },
  },
});
