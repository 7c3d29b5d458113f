import Big from 'big.js';
import { oneLine } from '@app/shared-kernel';
import { EmailKind, exampleValues, substitute } from '../../domain/email-kinds';
import { isReadableLogo } from '../../domain/logo';
import { Block, DEFAULT_COLUMN_LABELS, LineItemColumn, TemplateDocument } from '../../domain/template-document';
import { printable, PAGE_POINTS } from './display-list';
import { formatAmount, formatMoney, formatRate, lineItemCell, SampleDocument } from './sample-data';
import { escapeXml } from './svg-writer';

const esc = (text: string) => escapeXml(printable(text)).replace(/\r?\n/g, '<br>');

/**
 * A printed template filled with the sample as a print-ready HTML page (the same blocks, theme
 * and footer as the PDF). It is what a browser would print; the benchmark compares the PDF
 * renderer with headless Chromium printing it.
 */
export function printedHtml(document: TemplateDocument, data: SampleDocument): string {
  const { theme } = document;
  const { margins } = theme.page;
  const page = PAGE_POINTS[theme.page.size];
  const blocks = document.blocks.map((block) => htmlBlock(block, document, data)).join('\n');
  const footer = document.footer.legal_text ? `<footer>${esc(document.footer.legal_text)}</footer>` : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(`${data.title} ${data.meta[0].value}`)}</title>
<style>
@page { size: ${page.width}pt ${page.height}pt; margin: ${margins.top}pt ${margins.right}pt ${margins.bottom}pt ${margins.left}pt; }
body { font-family: "${theme.font_family}", sans-serif; font-size: ${theme.font_size}pt; color: ${theme.colors.text}; margin: 0; }
${document.branding.accent_bar ? `body::before { content: ""; position: fixed; top: -${margins.top}pt; left: -${margins.left}pt; right: -${margins.right}pt; height: 6pt; background: ${theme.colors.primary}; }` : ''}
section { margin-bottom: ${theme.spacing}pt; }
h1 { font-size: ${theme.heading_size}pt; color: ${theme.colors.primary}; margin: 0; }
.header { display: flex; justify-content: space-between; align-items: flex-start; }
.mark { font-weight: bold; color: ${theme.colors.primary}; font-size: ${Math.max(10, theme.heading_size * 0.65)}pt; }
.mark img { max-width: 150pt; max-height: 44pt; }
.label { text-transform: uppercase; font-weight: bold; color: ${theme.colors.muted}; font-size: ${theme.font_size - 1}pt; }
.parties { display: flex; gap: 24pt; } .parties > div { flex: 1; }
.meta { display: flex; flex-wrap: wrap; border-top: 0.75pt solid ${theme.colors.border}; border-bottom: 0.75pt solid ${theme.colors.border}; }
.meta > div { width: 25%; padding: 4pt 0; } .meta span { display: block; color: ${theme.colors.muted}; font-size: ${theme.font_size - 1}pt; }
table { width: 100%; border-collapse: collapse; } th { background: ${theme.colors.table_header_background}; text-align: left; }
th, td { padding: 4pt; border-bottom: 0.5pt solid ${theme.colors.border}; vertical-align: top; } .num { text-align: right; }
thead { display: table-header-group; } tr { break-inside: avoid; }
.totals { margin-left: auto; width: 260pt; } .totals td { border: none; } .totals .total td { border-top: 1pt solid ${theme.colors.text}; font-weight: bold; font-size: ${theme.font_size + 2}pt; }
h2 { font-size: ${theme.font_size}pt; color: ${theme.colors.primary}; margin: 0 0 2pt; }
footer { position: fixed; bottom: -${margins.bottom - 8}pt; left: 0; right: 0; color: ${theme.colors.muted}; font-size: ${theme.font_size - 1.5}pt; border-top: 0.5pt solid ${theme.colors.border}; padding-top: 4pt; }
</style></head>
<body>
${blocks}
${footer}
</body></html>`;
}

function htmlBlock(block: Block, document: TemplateDocument, data: SampleDocument): string {
  const company = document.branding.company_name ?? data.seller.name;
  switch (block.type) {
    case 'header': {
      const mark = !block.show_logo
        ? ''
        : document.branding.logo && isReadableLogo(document.branding.logo)
          ? `<img src="${escapeXml(document.branding.logo)}" alt="${esc(company)}">`
          : esc(company);
      const title = `<h1>${esc(block.title ?? data.title)}</h1>`;
      return block.align === 'center'
        ? `<section style="text-align:center"><div class="mark">${mark}</div>${title}</section>`
        : `<section class="header" style="flex-direction:${block.align === 'right' ? 'row-reverse' : 'row'}"><div class="mark">${mark}</div>${title}</section>`;
    }
    case 'parties': {
      const party = (label: string, p: SampleDocument['seller'], name: string) =>
        `<div><div class="label">${esc(label)}</div><strong>${esc(name)}</strong><br>${p.lines.map(esc).join('<br>')}${
          block.show_tax_ids ? `<br>${esc(p.taxId)}` : ''
        }</div>`;
      return `<section class="parties">${party(block.seller_label, data.seller, company)}${party(block.buyer_label, data.buyer, data.buyer.name)}</section>`;
    }
    case 'document_meta':
      return `<section class="meta">${block.fields
        .map((field) => data.meta.find((entry) => entry.field === field)!)
        .map((entry) => `<div><span>${esc(entry.label)}</span><strong>${esc(entry.value)}</strong></div>`)
        .join('')}</section>`;
    case 'line_items': {
      const cls = (key: LineItemColumn) => (key === 'description' ? '' : ' class="num"');
      const head = block.columns
        .map(
          (column) =>
            `<th${cls(column.key)}${column.width ? ` style="width:${column.width}%"` : ''}>${esc(column.label ?? DEFAULT_COLUMN_LABELS[column.key])}</th>`,
        )
        .join('');
      const rows = data.lines
        .map(
          (item) =>
            `<tr>${block.columns.map((column) => `<td${cls(column.key)}>${esc(lineItemCell(column.key, item))}</td>`).join('')}</tr>`,
        )
        .join('\n');
      return `<section><table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table></section>`;
    }
    case 'totals': {
      const taxes = block.show_tax_summary
        ? data.taxes.map((tax) => [
            `VAT ${formatRate(tax.rate)} on ${formatAmount(tax.base)}`,
            formatMoney(tax.amount, data.currency),
          ])
        : [
            [
              'VAT',
              formatMoney(
                data.taxes.reduce((sum, tax) => sum.plus(tax.amount), new Big(0)),
                data.currency,
              ),
            ],
          ];
      const rows = [['Subtotal', formatMoney(data.subtotal, data.currency)], ...taxes]
        .map(([label, value]) => `<tr><td>${esc(label)}</td><td class="num">${esc(value)}</td></tr>`)
        .join('');
      return `<section><table class="totals">${rows}<tr class="total"><td>${data.type === 'credit_note' ? 'Total credited' : 'Total'}</td><td class="num">${esc(
        formatMoney(data.total, data.currency),
      )}</td></tr></table></section>`;
    }
    case 'notes':
    case 'payment_instructions': {
      const text = block.text ?? (block.type === 'notes' ? data.notes : data.paymentInstructions);
      return `<section>${block.title ? `<h2>${esc(block.title)}</h2>` : ''}<p>${esc(text)}</p></section>`;
    }
    case 'free_text':
      return `<section style="text-align:${block.align}"><p>${esc(block.text)}</p></section>`;
  }
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/**
 * An e-mail template filled with its kind's example values: the subject, a plain-text body, and
 * an HTML body (values escaped; inline styles and a table layout, as mail clients need).
 */
export function renderEmail(document: TemplateDocument, kind: EmailKind): RenderedEmail {
  const email = document.email!;
  const values = exampleValues(kind);
  const subject = oneLine(printable(substitute(email.subject, values)));
  const body = printable(substitute(email.body, values));
  const legal = document.footer.legal_text;
  const text = `${body}${legal ? `\n\n-- \n${printable(legal)}` : ''}\n`;
  const { theme } = document;
  const company = document.branding.company_name ?? values['organization.name'] ?? '';
  const paragraphs = printable(email.body)
    .split(/\r?\n\s*\r?\n/)
    .map((paragraph) => `<p style="margin:0 0 14px">${substitute(esc(paragraph), values, esc)}</p>`)
    .join('\n');
  const preheader = email.preheader
    ? `<div style="display:none;max-height:0;overflow:hidden">${esc(substitute(email.preheader, values))}</div>`
    : '';
  const html = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7">${preheader}
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="600" cellspacing="0" cellpadding="0" style="max-width:600px;width:100%;background:#ffffff;font-family:'${theme.font_family}',Arial,sans-serif;font-size:${theme.font_size + 5}px;line-height:1.5;color:${theme.colors.text}">
${document.branding.accent_bar ? `<tr><td style="height:6px;background:${theme.colors.primary}"></td></tr>` : ''}
<tr><td style="padding:24px 32px 8px;font-weight:bold;font-size:${theme.heading_size}px;color:${theme.colors.primary}">${
    document.branding.logo && isReadableLogo(document.branding.logo)
      ? `<img src="${escapeXml(document.branding.logo)}" alt="${esc(company)}" style="max-height:44px">`
      : esc(company)
  }</td></tr>
<tr><td style="padding:8px 32px 24px">
${paragraphs}
</td></tr>
${legal ? `<tr><td style="padding:16px 32px;border-top:1px solid ${theme.colors.border};color:${theme.colors.muted};font-size:${theme.font_size + 2}px">${esc(legal)}</td></tr>` : ''}
</table></td></tr></table>
</body></html>
`;
  return { subject, html, text };
}
