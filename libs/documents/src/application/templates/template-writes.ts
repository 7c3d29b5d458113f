import { Actor, isUuid } from '@app/shared-kernel';
import {
  DocumentTemplate,
  fieldRefusal,
  PRINTED_DOCUMENT_TYPES,
  PrintedDocumentType,
  systemTemplateReadOnly,
  templateNotFound,
} from '../../domain/document-template';
import { systemTemplate } from '../../domain/system-templates';
import { TemplateRepository } from '../../domain/template.repository';
import { templateResponse } from './template-response';
import { TemplateView } from './template.view';

/** What the template commands share: the audit resource, a default slot's printed type, loading the template to change, its event. */

export const RESOURCE = 'document_template';

export function parsePrintedType(value: string): PrintedDocumentType {
  if (!(PRINTED_DOCUMENT_TYPES as readonly string[]).includes(value)) {
    throw fieldRefusal(
      'document_type',
      'INVALID_VALUE',
      `Defaults are kept per printed document type: ${PRINTED_DOCUMENT_TYPES.join(', ')} (the published e-mail template of a mail kind is its default).`,
    );
  }
  return value as PrintedDocumentType;
}

/** A system template, or the workspace's own (not deleted); 404 otherwise, whatever the id looks like. */
export async function loadAny(
  templates: TemplateRepository,
  actor: Actor,
  id: string,
  lock?: 'share',
): Promise<DocumentTemplate> {
  const system = isUuid(id) ? systemTemplate(id) : undefined;
  if (system) return DocumentTemplate.restore(system);
  const template = await templates.find(actor, id, lock);
  if (!template) throw templateNotFound();
  return template;
}

export async function loadOwn(templates: TemplateRepository, actor: Actor, id: string): Promise<DocumentTemplate> {
  if (isUuid(id) && systemTemplate(id)) throw systemTemplateReadOnly(id.toLowerCase());
  const template = await templates.find(actor, id);
  if (!template) throw templateNotFound();
  return template;
}

/** A template as its GET answers it, in the API's default locale (an event has no request language). */
export function templateEvent(view: TemplateView): Record<string, unknown> {
  return templateResponse(view, 'en');
}
