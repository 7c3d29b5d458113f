import { DomainError } from '@app/shared-kernel';
import { DocumentErrors } from '../../domain/document-errors';

/**
 * What one render may cost, whatever the template holds: a document past these is refused, never
 * drawn. The largest template the schema allows draws well under them (forty 4,000-character
 * blocks of prose are about 35 pages); line-break floods and tall footers are what reach them.
 */
export const RENDER_LIMITS = {
  pages: 50,
  /** Text runs, rules, rectangles and images over all pages, footers included. */
  operations: 10_000,
  /** The footer's share of the page height: past it, each content line would get a page of its own. */
  footerShare: 0.25,
} as const;

export function renderLimitExceeded(measure: 'pages' | 'drawing operations', limit: number): DomainError {
  return DocumentErrors.RENDER_LIMIT_EXCEEDED.create(
    `This document would take more than ${limit} ${measure} to render; shorten its text or use fewer blocks or line breaks.`,
    { param: 'template_json', details: { limit, measure } },
  );
}
