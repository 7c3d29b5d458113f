import { DomainError } from '@app/shared-kernel';
import { SYSTEM_TEMPLATES } from './system-templates';
import { CURRENT_SCHEMA_VERSION, validateTemplateDocument } from './template-document';
import { upcastTemplateDocument, upcastV1ToV2 } from './template-upcasters';

const invoice = structuredClone(SYSTEM_TEMPLATES[0].document) as unknown as Record<string, any>;

function errorsOf(document: unknown) {
  try {
    validateTemplateDocument(document);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).errors!.map(({ param, code }) => `${param} ${code}`);
  }
  throw new Error('expected the document to be refused');
}

describe('template document schema (version 2)', () => {
  it.each(['\r', '\n', '\r\n', '\u000b', '\f', '\u0085', '\u2028', '\u2029'])(
    'refuses the line break %j in the header-like fields (subject, preheader, sender name)',
    (lineBreak) => {
      const email = { subject: `Invoice${lineBreak}Bcc: x@example.com`, preheader: `a${lineBreak}b`, body: `a${lineBreak}b` };
      const branding = { ...invoice.branding, company_name: `Acme${lineBreak}Ltd` };
      expect(errorsOf({ ...invoice, branding, email })).toEqual([
        'template_json/branding/company_name INVALID_CHARACTER',
        'template_json/email/subject INVALID_CHARACTER',
        'template_json/email/preheader INVALID_CHARACTER',
      ]);
      expect(
        validateTemplateDocument({
          ...invoice,
          branding: { ...branding, company_name: 'Acme\tLtd' },
          email: { ...email, subject: 'a\tb', preheader: null },
        }),
      ).toBeDefined();
    },
  );

  it('accepts every system template', () => {
    for (const template of SYSTEM_TEMPLATES) expect(validateTemplateDocument(template.document)).toBe(template.document);
  });

  it('points each error at the offending place under template_json', () => {
    const blocks = [...invoice.blocks.slice(0, 3), { type: 'signature' }];
    expect(errorsOf({ ...invoice, blocks })).toEqual(['template_json/blocks/3/type INVALID_VALUE']);
    expect(errorsOf({ ...invoice, blocks: [{ type: 7 }] })).toEqual([
      'template_json/blocks/0/type INVALID_TYPE',
      'template_json/blocks/0/type INVALID_VALUE',
    ]);
    expect(errorsOf({ ...invoice, blocks: [{ type: 'notes', title: null }] })).toEqual(['template_json/blocks/0/text REQUIRED']);
    expect(errorsOf({ ...invoice, blocks: [{ type: 'notes', title: null, text: null, size: 3 }] })).toEqual([
      'template_json/blocks/0/size UNKNOWN_PARAMETER',
    ]);
    expect(errorsOf({ ...invoice, theme: { ...invoice.theme, page: { ...invoice.theme.page, size: 'A3' } } })).toEqual([
      'template_json/theme/page/size INVALID_VALUE',
    ]);
    expect(errorsOf({ ...invoice, theme: { ...invoice.theme, spacing: -1, heading_size: '20' } })).toEqual([
      'template_json/theme/heading_size INVALID_TYPE',
      'template_json/theme/spacing OUT_OF_RANGE',
    ]);
    const { footer: _footer, ...withoutFooter } = invoice;
    expect(errorsOf(withoutFooter)).toEqual(['template_json/footer REQUIRED']);
    expect(errorsOf([])).toEqual(['template_json INVALID_TYPE']);
  });

  it('reports at most ten errors', () => {
    const blocks = Array.from({ length: 30 }, () => ({ type: 'nope' }));
    expect(errorsOf({ ...invoice, blocks })).toHaveLength(10);
  });
});

describe('template document upcasters', () => {
  const v1 = {
    font: 'serif',
    accent_color: '#0a7d4f',
    page_size: 'LETTER',
    company_name: 'Legacy GmbH',
    logo: null,
    blocks: [
      { type: 'header', title: 'Invoice' },
      { type: 'parties' },
      { type: 'meta' },
      { type: 'items', columns: ['description', 'quantity', 'amount'] },
      { type: 'totals', tax_summary: false },
      { type: 'notes', text: 'Thanks' },
      { type: 'text', text: '' },
    ],
    footer_text: 'Legal',
  };

  it('v1 → v2 maps every part of the first format, and its result is a valid v2 document', () => {
    const v2 = upcastV1ToV2(v1);
    expect(v2.theme).toEqual(
      expect.objectContaining({ font_family: 'DejaVu Serif', page: expect.objectContaining({ size: 'Letter' }) }),
    );
    expect(v2.theme.colors.primary).toBe('#0a7d4f');
    expect(v2.branding).toEqual({ company_name: 'Legacy GmbH', logo: null, accent_bar: true });
    expect(v2.blocks).toEqual([
      { type: 'header', title: 'Invoice', show_logo: true, align: 'left' },
      { type: 'parties', seller_label: 'From', buyer_label: 'Bill to', show_tax_ids: true },
      { type: 'document_meta', fields: ['number', 'issue_date', 'due_date'] },
      {
        type: 'line_items',
        columns: [
          { key: 'description', label: null, width: null },
          { key: 'quantity', label: null, width: null },
          { key: 'amount', label: null, width: null },
        ],
        striped: false,
      },
      { type: 'totals', show_tax_summary: false },
      { type: 'notes', title: null, text: 'Thanks' },
      { type: 'free_text', text: ' ', align: 'left' },
    ]);
    expect(v2.footer).toEqual({ legal_text: 'Legal', show_page_numbers: true });
    expect(() => validateTemplateDocument(v2)).not.toThrow();
    expect(upcastV1ToV2({ font: 'sans', blocks: [], email: { subject: 's', body: 'b' } })).toEqual(
      expect.objectContaining({ email: { subject: 's', preheader: null, body: 'b' } }),
    );
  });

  it('runs the steps from the stored version up to the current one, and leaves a current document as it is', () => {
    expect(CURRENT_SCHEMA_VERSION).toBe(2);
    expect(upcastTemplateDocument(v1, 1)).toEqual(upcastV1ToV2(v1));
    expect(upcastTemplateDocument(invoice, 2)).toBe(invoice);
    expect(() => upcastTemplateDocument(invoice, 3)).toThrow(/schema version 3/);
    expect(() => upcastTemplateDocument(invoice, 0)).toThrow(/schema version 0/);
  });
});
