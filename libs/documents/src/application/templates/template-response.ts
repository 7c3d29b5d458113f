import { emailKind, Locale } from '../../domain/email-kinds';
import { TemplateView } from './template.view';

/** A template as the API renders it (snake_case), its mail kind named in the request's locale. */
export function templateResponse({ template: t, defaultFor }: TemplateView, locale: Locale) {
  return {
    id: t.id,
    object: 'document_template' as const,
    name: t.name,
    description: t.description,
    document_types: t.documentTypes,
    status: t.status,
    is_system: t.isSystem,
    version: t.version,
    schema_version: t.schemaVersion,
    anchor_key: t.anchorKey,
    anchor_name: t.anchorKey ? (emailKind(t.anchorKey)?.name[locale] ?? null) : null,
    default_for: defaultFor,
    copied_from_id: t.copiedFromId,
    template_json: t.document,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
