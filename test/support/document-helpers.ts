/** A valid template document (schema version 2) other than the system defaults: serif, Letter, Greek and Cyrillic text. */
export function templateDocument(overrides: Record<string, any> = {}): Record<string, any> {
  return {
    theme: {
      font_family: 'DejaVu Serif',
      font_size: 10,
      heading_size: 22,
      colors: { primary: '#7a1f3d', text: '#202020', muted: '#707070', table_header_background: '#f4eef0', border: '#dddddd' },
      spacing: 12,
      page: { size: 'Letter', margins: { top: 54, right: 54, bottom: 60, left: 54 } },
    },
    branding: { company_name: 'Ελληνικά & Кириллица Ltd', logo: null, accent_bar: false },
    blocks: [
      { type: 'header', title: 'Rechnung', show_logo: true, align: 'left' },
      { type: 'parties', seller_label: 'Von', buyer_label: 'An', show_tax_ids: false },
      { type: 'document_meta', fields: ['number', 'issue_date'] },
      {
        type: 'line_items',
        columns: [
          { key: 'description', label: 'Leistung', width: null },
          { key: 'amount', label: 'Betrag', width: 20 },
        ],
        striped: false,
      },
      { type: 'totals', show_tax_summary: false },
      { type: 'free_text', text: 'Ευχαριστούμε · Спасибо · Merci', align: 'center' },
    ],
    footer: { legal_text: 'Sitz der Gesellschaft: Berlin', show_page_numbers: true },
    ...overrides,
  };
}
