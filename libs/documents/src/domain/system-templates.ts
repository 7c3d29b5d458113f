import { EMAIL_KINDS } from './email-kinds';
import { CURRENT_SCHEMA_VERSION, TemplateDocument, Theme } from './template-document';
import { PrintedDocumentType, TemplateState } from './document-template';

/**
 * Built-in system defaults: one per printed document type and one per mail kind. They are
 * definitions, not rows: every workspace reads the same ones by the same stable ids, and they
 * are valid targets for get, copy, preview, thumbnail and mark-default, never for update or
 * delete.
 */
const BUILT_IN_AT = new Date('2026-01-01T00:00:00.000Z');

export const SYSTEM_TEMPLATE_IDS = {
  invoice: '00000000-0000-4000-8000-000000000001',
  credit_note: '00000000-0000-4000-8000-000000000002',
  quote: '00000000-0000-4000-8000-000000000003',
} as const satisfies Record<PrintedDocumentType, string>;

const EMAIL_IDS: Record<string, string> = {
  'invoice.finalized': '00000000-0000-4000-8000-000000000101',
  'invoice.payment_failed': '00000000-0000-4000-8000-000000000102',
  'credit_note.created': '00000000-0000-4000-8000-000000000103',
  'quote.sent': '00000000-0000-4000-8000-000000000104',
  'wallet.low_balance': '00000000-0000-4000-8000-000000000105',
  'wallet.top_up_succeeded': '00000000-0000-4000-8000-000000000106',
};

export const BASE_THEME: Theme = {
  font_family: 'DejaVu Sans',
  font_size: 9,
  heading_size: 20,
  colors: { primary: '#1f3a5f', text: '#1f2933', muted: '#6b7280', table_header_background: '#f1f4f8', border: '#d9dee5' },
  spacing: 14,
  page: { size: 'A4', margins: { top: 48, right: 48, bottom: 56, left: 48 } },
};

const LEGAL =
  'Northwind Analytics GmbH · Friedrichstraße 68, 10117 Berlin · Amtsgericht Charlottenburg HRB 214365 · ' +
  'Managing director: Dr. Lena Hoffmann · VAT ID DE312456789';

function printed(
  title: string,
  extra: TemplateDocument['blocks'],
  metaFields: Array<'number' | 'issue_date' | 'due_date' | 'valid_until' | 'reference' | 'purchase_order' | 'service_period'>,
): TemplateDocument {
  return {
    theme: BASE_THEME,
    branding: { company_name: null, logo: null, accent_bar: true },
    blocks: [
      { type: 'header', title, show_logo: true, align: 'left' },
      { type: 'parties', seller_label: 'From', buyer_label: 'Bill to', show_tax_ids: true },
      { type: 'document_meta', fields: metaFields },
      {
        type: 'line_items',
        columns: [
          { key: 'description', label: null, width: null },
          { key: 'quantity', label: null, width: 10 },
          { key: 'unit_price', label: null, width: 16 },
          { key: 'tax_rate', label: null, width: 10 },
          { key: 'amount', label: null, width: 16 },
        ],
        striped: true,
      },
      { type: 'totals', show_tax_summary: true },
      ...extra,
    ],
    footer: { legal_text: LEGAL, show_page_numbers: true },
  };
}

const PRINTED_DOCUMENTS: Record<PrintedDocumentType, { name: string; document: TemplateDocument }> = {
  invoice: {
    name: 'Standard invoice',
    document: printed(
      'Invoice',
      [
        { type: 'payment_instructions', title: 'Payment', text: null },
        { type: 'notes', title: 'Notes', text: null },
      ],
      ['number', 'issue_date', 'due_date', 'service_period', 'reference'],
    ),
  },
  credit_note: {
    name: 'Standard credit note',
    document: printed('Credit note', [{ type: 'notes', title: 'Notes', text: null }], ['number', 'issue_date', 'reference']),
  },
  quote: {
    name: 'Standard quote',
    document: printed(
      'Quote',
      [
        { type: 'notes', title: 'Terms', text: null },
        { type: 'free_text', text: 'We look forward to working with you.', align: 'left' },
      ],
      ['number', 'issue_date', 'valid_until', 'reference'],
    ),
  },
};

const EMAIL_COPY: Record<string, { subject: string; body: string }> = {
  'invoice.finalized': {
    subject: 'Invoice {{ invoice.number }} from {{ organization.name }}',
    body:
      'Hello {{ customer.name }},\n\nyour invoice {{ invoice.number }} for {{ invoice.total }} is ready and due on ' +
      '{{ invoice.due_date }}.\n\nView and pay it here: {{ invoice.url }}\n\nThank you for your business,\n{{ organization.name }}',
  },
  'invoice.payment_failed': {
    subject: 'Payment for invoice {{ invoice.number }} failed',
    body:
      'Hello {{ customer.name }},\n\nwe could not collect {{ invoice.amount_due }} for invoice {{ invoice.number }}: ' +
      '{{ payment.failure_reason }}\n\nPlease update your payment method: {{ invoice.url }}\n\n{{ organization.name }}',
  },
  'credit_note.created': {
    subject: 'Credit note {{ credit_note.number }} from {{ organization.name }}',
    body:
      'Hello {{ customer.name }},\n\nwe issued credit note {{ credit_note.number }} over {{ credit_note.total }} ' +
      'against invoice {{ invoice.number }}.\n\n{{ organization.name }}',
  },
  'quote.sent': {
    subject: 'Your quote {{ quote.number }} from {{ organization.name }}',
    body:
      'Hello {{ customer.name }},\n\nplease find quote {{ quote.number }} over {{ quote.total }}, valid until ' +
      '{{ quote.expires_at }}.\n\nReview and accept it here: {{ quote.url }}\n\n{{ organization.name }}',
  },
  'wallet.low_balance': {
    subject: 'Your balance is running low',
    body:
      'Hello {{ customer.name }},\n\nyour prepaid balance is {{ wallet.balance }}, below your threshold of ' +
      '{{ wallet.threshold }}. Top up to keep your services running.\n\n{{ organization.name }}',
  },
  'wallet.top_up_succeeded': {
    subject: 'Top-up of {{ top_up.amount }} received',
    body:
      'Hello {{ customer.name }},\n\nwe received your top-up of {{ top_up.amount }}. Your balance is now ' +
      '{{ wallet.balance }}.\n\n{{ organization.name }}',
  },
};

function systemState(
  fields: Omit<
    TemplateState,
    | 'organizationId'
    | 'workspaceId'
    | 'isSystem'
    | 'version'
    | 'schemaVersion'
    | 'createdAt'
    | 'updatedAt'
    | 'deletedAt'
    | 'copiedFromId'
    | 'description'
  > & { description: string },
): TemplateState {
  return {
    ...fields,
    organizationId: null,
    workspaceId: null,
    isSystem: true,
    version: 1,
    schemaVersion: CURRENT_SCHEMA_VERSION,
    copiedFromId: null,
    createdAt: BUILT_IN_AT,
    updatedAt: BUILT_IN_AT,
    deletedAt: null,
  };
}

/** Every system template, printed ones first (invoice, credit note, quote), then one per mail kind. */
export const SYSTEM_TEMPLATES: readonly TemplateState[] = [
  ...(Object.keys(SYSTEM_TEMPLATE_IDS) as PrintedDocumentType[]).map((type) =>
    systemState({
      id: SYSTEM_TEMPLATE_IDS[type],
      name: PRINTED_DOCUMENTS[type].name,
      description: `Built-in ${type.replace('_', ' ')} layout; copy it to make your own.`,
      kind: 'printed',
      documentTypes: [type],
      status: 'active',
      anchorKey: null,
      document: PRINTED_DOCUMENTS[type].document,
    }),
  ),
  ...EMAIL_KINDS.map((kind) =>
    systemState({
      id: EMAIL_IDS[kind.anchorKey],
      name: `Standard e-mail: ${kind.name.en}`,
      description: `Built-in e-mail for ${kind.anchorKey}; copy it to make your own.`,
      kind: 'email',
      documentTypes: ['email'],
      status: 'published',
      anchorKey: kind.anchorKey,
      document: {
        theme: BASE_THEME,
        branding: { company_name: null, logo: null, accent_bar: true },
        blocks: [],
        footer: { legal_text: LEGAL, show_page_numbers: false },
        email: { subject: EMAIL_COPY[kind.anchorKey].subject, preheader: null, body: EMAIL_COPY[kind.anchorKey].body },
      },
    }),
  ),
];

const BY_ID = new Map(SYSTEM_TEMPLATES.map((template) => [template.id, template]));

export function systemTemplate(id: string): TemplateState | undefined {
  return BY_ID.get(id.toLowerCase());
}

export function systemDefaultFor(type: PrintedDocumentType): TemplateState {
  return BY_ID.get(SYSTEM_TEMPLATE_IDS[type])!;
}

export function systemEmailFor(anchorKey: string): TemplateState | undefined {
  return BY_ID.get(EMAIL_IDS[anchorKey]);
}
