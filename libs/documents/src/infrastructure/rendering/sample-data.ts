import Big from 'big.js';
import { PrintedDocumentType } from '../../domain/document-template';
import { LineItemColumn } from '../../domain/template-document';

/**
 * Realistic sample data per document type, with fixed dates, numbers and ids: a preview of the
 * same template is the same document, byte for byte. Amounts are computed with big.js.
 */
export interface Party {
  name: string;
  lines: string[];
  taxId: string;
}

export interface SampleLine {
  description: string;
  quantity: Big;
  unitPrice: Big;
  /** A fraction: 0.19 is 19 %. */
  taxRate: Big;
  amount: Big;
}

export interface TaxLine {
  rate: Big;
  base: Big;
  amount: Big;
}

export interface SampleDocument {
  type: PrintedDocumentType;
  title: string;
  currency: string;
  meta: Array<{ field: string; label: string; value: string }>;
  seller: Party;
  buyer: Party;
  lines: SampleLine[];
  subtotal: Big;
  taxes: TaxLine[];
  total: Big;
  notes: string;
  paymentInstructions: string;
}

const SELLER: Party = {
  name: 'Northwind Analytics GmbH',
  lines: ['Friedrichstraße 68', '10117 Berlin', 'Germany'],
  taxId: 'VAT ID DE312456789',
};

const BUYER: Party = {
  name: 'Acme Corporation',
  lines: ['Attn. Accounts Payable', '1200 Harbor Boulevard', 'Rotterdam 3011 AA, Netherlands'],
  taxId: 'VAT ID NL004495445B01',
};

const CATALOG: Array<{ description: string; quantity: string; unitPrice: string; taxRate: string }> = [
  { description: 'Analytics Platform — Business plan (November 2026)', quantity: '1', unitPrice: '890.00', taxRate: '0.19' },
  { description: 'Additional seats', quantity: '12', unitPrice: '24.50', taxRate: '0.19' },
  { description: 'API requests above the included 5,000,000 (per 1,000)', quantity: '1840', unitPrice: '0.12', taxRate: '0.19' },
  { description: 'Data warehouse storage, GB-month', quantity: '350.5', unitPrice: '0.08', taxRate: '0.19' },
  { description: 'Onboarding workshop (remote, half day)', quantity: '1', unitPrice: '450.00', taxRate: '0.19' },
  { description: 'Printed quick-reference guides', quantity: '25', unitPrice: '3.20', taxRate: '0.07' },
];

function line(entry: (typeof CATALOG)[number], suffix = ''): SampleLine {
  const quantity = new Big(entry.quantity);
  const unitPrice = new Big(entry.unitPrice);
  return {
    description: `${entry.description}${suffix}`,
    quantity,
    unitPrice,
    taxRate: new Big(entry.taxRate),
    amount: quantity.times(unitPrice).round(2, Big.roundHalfUp),
  };
}

/** `lineCount` beyond the six catalog lines repeats them per usage day: enough for a multi-page invoice. */
export function sampleDocument(type: PrintedDocumentType, options: { lineCount?: number } = {}): SampleDocument {
  const count = options.lineCount ?? (type === 'credit_note' ? 2 : type === 'quote' ? 4 : CATALOG.length);
  const lines = Array.from({ length: count }, (_, index) =>
    index < CATALOG.length
      ? line(CATALOG[index])
      : line(CATALOG[2 + (index % 2)], ` — usage on 2026-11-${String(1 + ((index - CATALOG.length) % 30)).padStart(2, '0')}`),
  );
  const subtotal = lines.reduce((sum, item) => sum.plus(item.amount), new Big(0));
  const rates = [...new Set(lines.map((item) => item.taxRate.toString()))].map((rate) => new Big(rate)).sort((a, b) => b.cmp(a));
  const taxes = rates.map((rate) => {
    const base = lines.filter((item) => item.taxRate.eq(rate)).reduce((sum, item) => sum.plus(item.amount), new Big(0));
    return { rate, base, amount: base.times(rate).round(2, Big.roundHalfUp) };
  });
  const total = taxes.reduce((sum, tax) => sum.plus(tax.amount), subtotal);
  const meta = {
    invoice: [
      { field: 'number', label: 'Invoice number', value: 'INV-2026-0042' },
      { field: 'issue_date', label: 'Issue date', value: '30 November 2026' },
      { field: 'due_date', label: 'Due date', value: '14 December 2026' },
      { field: 'valid_until', label: 'Valid until', value: '—' },
      { field: 'reference', label: 'Customer reference', value: 'ACME-PO-88231' },
      { field: 'purchase_order', label: 'Purchase order', value: 'PO 4500012345' },
      { field: 'service_period', label: 'Service period', value: '1–30 November 2026' },
    ],
    credit_note: [
      { field: 'number', label: 'Credit note number', value: 'CN-2026-0007' },
      { field: 'issue_date', label: 'Issue date', value: '2 December 2026' },
      { field: 'due_date', label: 'Due date', value: '—' },
      { field: 'valid_until', label: 'Valid until', value: '—' },
      { field: 'reference', label: 'Credits invoice', value: 'INV-2026-0042' },
      { field: 'purchase_order', label: 'Purchase order', value: 'PO 4500012345' },
      { field: 'service_period', label: 'Service period', value: '1–30 November 2026' },
    ],
    quote: [
      { field: 'number', label: 'Quote number', value: 'Q-2026-0113' },
      { field: 'issue_date', label: 'Issue date', value: '1 December 2026' },
      { field: 'due_date', label: 'Due date', value: '—' },
      { field: 'valid_until', label: 'Valid until', value: '31 December 2026' },
      { field: 'reference', label: 'Your request', value: 'RFQ 2026-77' },
      { field: 'purchase_order', label: 'Purchase order', value: '—' },
      { field: 'service_period', label: 'Term', value: '12 months from acceptance' },
    ],
  }[type];
  return {
    type,
    title: { invoice: 'Invoice', credit_note: 'Credit note', quote: 'Quote' }[type],
    currency: 'EUR',
    meta,
    seller: SELLER,
    buyer: BUYER,
    lines,
    subtotal,
    taxes,
    total,
    notes:
      type === 'quote'
        ? 'Prices are exclusive of VAT. This quote is valid for 30 days; usage above the included volumes is billed monthly in arrears.'
        : type === 'credit_note'
          ? 'Credit for the service interruption of 14 November 2026 (incident NW-4471), as agreed with your account manager.'
          : 'Thank you for your business. Usage-based lines are billed in arrears for the service period shown above.',
    paymentInstructions:
      'Please transfer the total within 14 days to Northwind Analytics GmbH, IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX, ' +
      'quoting INV-2026-0042.',
  };
}

/** 1234.5 → "1,234.50": two decimals, comma thousands separators (the sample's locale is English). */
export function formatAmount(value: Big): string {
  const [whole, fraction] = value.abs().toFixed(2).split('.');
  return `${value.lt(0) ? '-' : ''}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

export function formatMoney(value: Big, currency: string): string {
  return `${currency === 'EUR' ? '€' : `${currency} `}${formatAmount(value)}`;
}

export function formatQuantity(value: Big): string {
  return value.toString();
}

export function formatRate(rate: Big): string {
  return `${rate.times(100).toString()} %`;
}

/** A line item's cell as every render shows it (PDF, thumbnail and HTML alike). */
export function lineItemCell(key: LineItemColumn, item: SampleLine): string {
  return {
    description: item.description,
    quantity: formatQuantity(item.quantity),
    unit_price: formatAmount(item.unitPrice),
    tax_rate: formatRate(item.taxRate),
    amount: formatAmount(item.amount),
  }[key];
}
