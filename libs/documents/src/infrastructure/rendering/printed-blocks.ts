import Big from 'big.js';
import { Block, DEFAULT_COLUMN_LABELS, LineItemColumn } from '../../domain/template-document';
import { Letterhead } from './letterhead';
import { PageWriter } from './page-writer';
import { formatAmount, formatMoney, formatRate, lineItemCell, SampleDocument } from './sample-data';
import { Typesetter } from './typesetter';

function mix(hex: string, towards: string, amount: number): string {
  const channel = (value: string, index: number) => parseInt(value.slice(1 + index * 2, 3 + index * 2), 16);
  return `#${[0, 1, 2]
    .map((index) => Math.round(channel(hex, index) + (channel(towards, index) - channel(hex, index)) * amount))
    .map((value) => value.toString(16).padStart(2, '0'))
    .join('')}`;
}

/** The blocks of a printed document (invoice, credit note, quote), each drawn at the cursor with its sample data. */
export class PrintedBlocks {
  constructor(
    private readonly type: Typesetter,
    private readonly letterhead: Letterhead,
  ) {}

  draw(page: PageWriter, block: Block, data: SampleDocument): void {
    switch (block.type) {
      case 'header':
        return this.letterhead.draw(page, block.title ?? data.title, block.show_logo, block.align, data.seller.name);
      case 'parties':
        return this.parties(page, block, data);
      case 'document_meta':
        return this.meta(page, block.fields, data);
      case 'line_items':
        return this.table(page, block, data);
      case 'totals':
        return this.totals(page, block.show_tax_summary, data);
      case 'notes':
        return this.titled(page, block.title, block.text ?? data.notes);
      case 'payment_instructions':
        return this.titled(page, block.title, block.text ?? data.paymentInstructions);
      case 'free_text':
        return this.type.paragraph(page, block.text, { align: block.align });
    }
  }

  private parties(page: PageWriter, block: Extract<Block, { type: 'parties' }>, data: SampleDocument): void {
    const column = (page.contentWidth - 24) / 2;
    const small = this.type.size - 1;
    const rows = (party: SampleDocument['seller']) => [party.name, ...party.lines, ...(block.show_tax_ids ? [party.taxId] : [])];
    const height =
      this.type.lineHeight(small) +
      Math.max(rows(data.seller).length, rows(data.buyer).length) * this.type.lineHeight(this.type.size);
    page.ensure(height);
    const top = page.y;
    const seller = { ...data.seller, name: this.type.document.branding.company_name ?? data.seller.name };
    for (const [index, [label, party]] of (
      [
        [block.seller_label, seller],
        [block.buyer_label, data.buyer],
      ] as const
    ).entries()) {
      const x = page.left + index * (column + 24);
      let y = top;
      this.type.text(page, label.toUpperCase(), {
        face: this.type.bold,
        size: small,
        color: this.type.colors.muted,
        x,
        y,
        width: column,
      });
      y += this.type.lineHeight(small) + 2;
      rows(party).forEach((row, line) => {
        for (const wrapped of this.type.wrap(row, line === 0 ? this.type.bold : this.type.regular, this.type.size, column)) {
          this.type.text(page, wrapped, {
            face: line === 0 ? this.type.bold : this.type.regular,
            size: this.type.size,
            color: this.type.colors.text,
            x,
            y,
            width: column,
          });
          y += this.type.lineHeight(this.type.size);
        }
      });
      page.y = Math.max(page.y, y);
    }
  }

  /** Label above value, up to four cells a row; both wrap inside their cell. */
  private meta(page: PageWriter, fields: string[], data: SampleDocument): void {
    const entries = fields.map((field) => data.meta.find((entry) => entry.field === field)!).filter(Boolean);
    const perRow = Math.min(4, entries.length);
    const cell = page.contentWidth / perRow;
    const small = this.type.size - 1;
    for (let start = 0; start < entries.length; start += perRow) {
      const cells = entries.slice(start, start + perRow).map((entry) => ({
        labels: this.type.wrap(entry.label, this.type.regular, small, cell - 6),
        values: this.type.wrap(entry.value, this.type.bold, this.type.size, cell - 6),
      }));
      const labelLines = Math.max(...cells.map((entry) => entry.labels.length));
      const valueLines = Math.max(...cells.map((entry) => entry.values.length));
      const height = labelLines * this.type.lineHeight(small) + valueLines * this.type.lineHeight(this.type.size) + 6;
      page.ensure(height);
      page.rule(this.type.colors.border, 0.75);
      const top = page.y + 5;
      cells.forEach((entry, index) => {
        const x = page.left + index * cell;
        entry.labels.forEach((line, number) =>
          this.type.text(page, line, {
            face: this.type.regular,
            size: small,
            color: this.type.colors.muted,
            x,
            y: top + number * this.type.lineHeight(small),
            width: cell - 6,
          }),
        );
        const valueTop = top + labelLines * this.type.lineHeight(small);
        entry.values.forEach((line, number) =>
          this.type.text(page, line, {
            face: this.type.bold,
            size: this.type.size,
            color: this.type.colors.text,
            x,
            y: valueTop + number * this.type.lineHeight(this.type.size),
            width: cell - 6,
          }),
        );
      });
      page.y = top + height - 4;
    }
    page.rule(this.type.colors.border, 0.75);
  }

  private table(page: PageWriter, block: Extract<Block, { type: 'line_items' }>, data: SampleDocument): void {
    const given = block.columns.reduce((sum, column) => sum + (column.width ?? 0), 0);
    const flexible = block.columns.filter((column) => column.width === null).length;
    const rest = Math.max(0, 100 - given);
    const scale = given > 100 || (flexible === 0 && given > 0) ? 100 / given : 1;
    const widths = block.columns.map(
      (column) => ((column.width === null ? rest / Math.max(flexible, 1) : column.width) * scale * page.contentWidth) / 100,
    );
    const padding = 4;
    const numeric = (key: LineItemColumn) => key !== 'description';
    const headerHeight = this.type.lineHeight(this.type.size) + padding * 2;
    const drawHeader = () => {
      page.push({
        kind: 'rect',
        x: page.left,
        y: page.y,
        w: page.contentWidth,
        h: headerHeight,
        fill: this.type.colors.table_header_background,
      });
      let x = page.left;
      block.columns.forEach((column, index) => {
        const label = column.label ?? DEFAULT_COLUMN_LABELS[column.key];
        const shown = this.type.wrap(label, this.type.bold, this.type.size, widths[index] - padding * 2)[0] ?? '';
        this.type.text(page, shown, {
          face: this.type.bold,
          size: this.type.size,
          color: this.type.colors.text,
          x: x + padding,
          y: page.y + padding,
          width: widths[index] - padding * 2,
          align: numeric(column.key) ? 'right' : 'left',
        });
        x += widths[index];
      });
      page.y += headerHeight;
    };
    page.ensure(headerHeight + this.type.lineHeight(this.type.size) + padding * 2);
    drawHeader();
    const stripe = mix(this.type.colors.table_header_background, '#ffffff', 0.55);
    data.lines.forEach((item, row) => {
      const cells = block.columns.map((column, index) =>
        this.type.wrap(lineItemCell(column.key, item), this.type.regular, this.type.size, widths[index] - padding * 2),
      );
      const height = Math.max(...cells.map((lines) => lines.length)) * this.type.lineHeight(this.type.size) + padding * 2;
      if (page.ensure(height)) drawHeader();
      if (block.striped && row % 2 === 1)
        page.push({ kind: 'rect', x: page.left, y: page.y, w: page.contentWidth, h: height, fill: stripe });
      let x = page.left;
      cells.forEach((lines, index) => {
        lines.forEach((line, number) =>
          this.type.text(page, line, {
            face: this.type.regular,
            size: this.type.size,
            color: this.type.colors.text,
            x: x + padding,
            y: page.y + padding + number * this.type.lineHeight(this.type.size),
            width: widths[index] - padding * 2,
            align: numeric(block.columns[index].key) ? 'right' : 'left',
          }),
        );
        x += widths[index];
      });
      page.y += height;
      page.rule(this.type.colors.border, 0.5);
    });
  }

  private totals(page: PageWriter, showTaxSummary: boolean, data: SampleDocument): void {
    const rows: Array<{ label: string; value: string; strong?: boolean }> = [
      { label: 'Subtotal', value: formatMoney(data.subtotal, data.currency) },
      ...(showTaxSummary
        ? data.taxes.map((tax) => ({
            label: `VAT ${formatRate(tax.rate)} on ${formatAmount(tax.base)}`,
            value: formatMoney(tax.amount, data.currency),
          }))
        : [
            {
              label: 'VAT',
              value: formatMoney(
                data.taxes.reduce((sum, tax) => sum.plus(tax.amount), new Big(0)),
                data.currency,
              ),
            },
          ]),
      {
        label: data.type === 'credit_note' ? 'Total credited' : 'Total',
        value: formatMoney(data.total, data.currency),
        strong: true,
      },
    ];
    const width = Math.min(260, page.contentWidth);
    const x = page.right - width;
    const lineHeight = this.type.lineHeight(this.type.size) + 4;
    page.ensure(rows.length * lineHeight + 6);
    for (const row of rows) {
      if (row.strong) {
        page.push({
          kind: 'line',
          x1: x,
          y1: page.y + 1,
          x2: page.right,
          y2: page.y + 1,
          color: this.type.colors.text,
          width: 1,
        });
        page.y += 4;
      }
      const face = row.strong ? this.type.bold : this.type.regular;
      const size = row.strong ? this.type.size + 2 : this.type.size;
      this.type.text(page, row.label, {
        face,
        size,
        color: row.strong ? this.type.colors.text : this.type.colors.muted,
        x,
        y: page.y,
        width: width * 0.62,
      });
      this.type.text(page, row.value, {
        face,
        size,
        color: this.type.colors.text,
        x: x + width * 0.62,
        y: page.y,
        width: width * 0.38,
        align: 'right',
      });
      page.y += row.strong ? this.type.lineHeight(size) + 4 : lineHeight;
    }
  }

  private titled(page: PageWriter, title: string | null, text: string): void {
    if (title) {
      page.ensure(this.type.lineHeight(this.type.size) * 2);
      this.type.text(page, title, {
        face: this.type.bold,
        size: this.type.size,
        color: this.type.colors.primary,
        x: page.left,
        y: page.y,
        width: page.contentWidth,
      });
      page.y += this.type.lineHeight(this.type.size) + 2;
    }
    this.type.paragraph(page, text, { color: this.type.colors.text });
  }
}
