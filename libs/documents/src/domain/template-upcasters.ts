import { CURRENT_SCHEMA_VERSION, TemplateDocument } from './template-document';

/**
 * Upgrades a stored template document from the schema version it was written in to the current
 * one, one explicit step per version (each tested on its own). Documents are stamped with the
 * current version on every write, so a step runs only on rows written before it existed; reading
 * never rewrites the row (the next update does).
 *
 * Version 1 (the first layout format): `font` 'sans' | 'serif', one `accent_color`, `page_size`
 * 'A4' | 'LETTER', `logo` (data URI), `company_name`, blocks whose table was `{type: 'items',
 * columns: ['description', …]}`, and a `footer_text` string.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Upcaster = (document: Json) => Json;

const STEPS: Record<number, Upcaster> = {
  1: upcastV1ToV2,
};

export function upcastTemplateDocument(document: unknown, fromVersion: number): TemplateDocument {
  if (!Number.isInteger(fromVersion) || fromVersion < 1 || fromVersion > CURRENT_SCHEMA_VERSION) {
    throw new Error(`Cannot read a template document of schema version ${fromVersion}.`);
  }
  let current = document as Json;
  for (let version = fromVersion; version < CURRENT_SCHEMA_VERSION; version += 1) {
    const step = STEPS[version];
    if (!step) throw new Error(`No upcaster from template schema version ${version}.`);
    current = step(current);
  }
  return current as TemplateDocument;
}

export function upcastV1ToV2(v1: Json): Json {
  const accent = typeof v1.accent_color === 'string' ? v1.accent_color : '#1f3a5f';
  const { email } = v1;
  return {
    theme: {
      font_family: v1.font === 'serif' ? 'DejaVu Serif' : 'DejaVu Sans',
      font_size: 9,
      heading_size: 20,
      colors: { primary: accent, text: '#1f2933', muted: '#6b7280', table_header_background: '#f1f4f8', border: '#d9dee5' },
      spacing: 14,
      page: { size: v1.page_size === 'LETTER' ? 'Letter' : 'A4', margins: { top: 48, right: 48, bottom: 56, left: 48 } },
    },
    branding: { company_name: v1.company_name ?? null, logo: v1.logo ?? null, accent_bar: true },
    blocks: (Array.isArray(v1.blocks) ? v1.blocks : []).map(upcastV1Block),
    footer: { legal_text: v1.footer_text ?? null, show_page_numbers: true },
    ...(email !== undefined && { email: { subject: email.subject, preheader: null, body: email.body } }),
  };
}

function upcastV1Block(block: Json): Json {
  switch (block.type) {
    case 'items':
      return {
        type: 'line_items',
        columns: (Array.isArray(block.columns) ? block.columns : ['description', 'quantity', 'unit_price', 'amount']).map(
          (key: string) => ({ key, label: null, width: null }),
        ),
        striped: false,
      };
    case 'header':
      return { type: 'header', title: block.title ?? null, show_logo: block.show_logo ?? true, align: 'left' };
    case 'parties':
      return { type: 'parties', seller_label: 'From', buyer_label: 'Bill to', show_tax_ids: true };
    case 'meta':
      return { type: 'document_meta', fields: ['number', 'issue_date', 'due_date'] };
    case 'totals':
      return { type: 'totals', show_tax_summary: block.tax_summary ?? true };
    case 'notes':
      return { type: 'notes', title: null, text: block.text ?? null };
    default:
      return { type: 'free_text', text: String(block.text ?? '') || ' ', align: 'left' };
  }
}
