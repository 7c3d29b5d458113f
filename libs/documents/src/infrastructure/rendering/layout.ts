import Big from 'big.js';
import { Align, Block, DEFAULT_COLUMN_LABELS, LineItemColumn, TemplateDocument } from '../../domain/template-document';
import { fieldRefusal } from '../../domain/document-template';
import { isReadableLogo } from '../../domain/logo';
import { FONT_FACES, FontFace } from './fonts';
import { RENDER_LIMITS, renderLimitExceeded } from './render-limits';
import { formatAmount, formatMoney, formatQuantity, formatRate, SampleDocument } from './sample-data';

/**
 * The page layout of a template filled with data, as a display list: positioned single-line text
 * runs, rectangles, lines and images, in PDF points with the origin at the top left. The PDF and
 * the SVG thumbnail are both drawn from it, so the thumbnail is the first page's real layout.
 */
export interface TextOp {
  kind: 'text';
  x: number;
  /** Top of the line box. */
  y: number;
  text: string;
  face: FontFace;
  size: number;
  color: string;
  width: number;
}
export interface RectOp {
  kind: 'rect';
  x: number;
  y: number;
  w: number;
  h: number;
  fill: string;
}
export interface LineOp {
  kind: 'line';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  color: string;
  width: number;
}
export interface ImageOp {
  kind: 'image';
  x: number;
  y: number;
  w: number;
  h: number;
  /** data: URI (PNG or JPEG). */
  src: string;
}
export type Op = TextOp | RectOp | LineOp | ImageOp;

export interface Layout {
  width: number;
  height: number;
  title: string;
  faces: FontFace[];
  pages: Op[][];
}

export interface Measurer {
  width(text: string, face: FontFace, size: number): number;
  /** Distance from the top of the line box to the baseline. */
  ascent(face: FontFace, size: number): number;
}

export const PAGE_POINTS = { A4: { width: 595.28, height: 841.89 }, Letter: { width: 612, height: 792 } } as const;

const LINE_HEIGHT = 1.3;

/** Text as it may be drawn: no control characters (XML and PDF strings refuse some), tabs as spaces. */
export function printable(text: string): string {
  return text.replace(/\t/g, ' ').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g, '');
}

function mix(hex: string, towards: string, amount: number): string {
  const channel = (value: string, index: number) => parseInt(value.slice(1 + index * 2, 3 + index * 2), 16);
  return `#${[0, 1, 2]
    .map((index) => Math.round(channel(hex, index) + (channel(towards, index) - channel(hex, index)) * amount))
    .map((value) => value.toString(16).padStart(2, '0'))
    .join('')}`;
}

/** The content the layout fills a template with: a printed document's sample, or a rendered e-mail. */
export type LayoutContent =
  | { kind: 'printed'; data: SampleDocument }
  | { kind: 'email'; subject: string; preheader: string | null; body: string; company: string };

/** Thrown when a layout reaches the last page its caller wants (a thumbnail: the first). */
class LastPageReached extends Error {}

export interface LayoutOptions {
  /** Lay out this many pages at most (a thumbnail needs one); the rest of the content is left out. */
  maxPages?: number;
}

class PageWriter {
  readonly pages: Op[][] = [];
  private ops: Op[] = [];
  private operations = 0;
  y = 0;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;

  constructor(
    readonly width: number,
    readonly height: number,
    private readonly document: TemplateDocument,
    private readonly footerHeight: number,
    private readonly maxPages: number,
  ) {
    const { margins } = document.theme.page;
    this.left = margins.left;
    this.right = width - margins.right;
    this.top = margins.top;
    this.bottom = height - margins.bottom - footerHeight;
    this.newPage();
  }

  get contentWidth(): number {
    return this.right - this.left;
  }

  newPage(): void {
    if (this.pages.length >= this.maxPages) throw new LastPageReached();
    if (this.pages.length >= RENDER_LIMITS.pages) throw renderLimitExceeded('pages', RENDER_LIMITS.pages);
    this.ops = [];
    this.pages.push(this.ops);
    if (this.document.branding.accent_bar) {
      this.push({ kind: 'rect', x: 0, y: 0, w: this.width, h: 6, fill: this.document.theme.colors.primary });
    }
    this.y = this.top;
  }

  /** Starts a new page when `height` does not fit below the cursor (unless the page is still empty). */
  ensure(height: number): boolean {
    if (this.y + height <= this.bottom || this.y === this.top) return false;
    this.newPage();
    return true;
  }

  push(op: Op): void {
    this.pushTo(this.ops, op);
  }

  /** Every drawing operation of the layout goes through here, so their number stays bounded. */
  pushTo(ops: Op[], op: Op): void {
    this.operations += 1;
    if (this.operations > RENDER_LIMITS.operations) throw renderLimitExceeded('drawing operations', RENDER_LIMITS.operations);
    ops.push(op);
  }
}

/**
 * The height a footer takes at the bottom of each page, or a refusal naming the field when it
 * would take more than its share of the page (each content line would then get a page of its own).
 */
export function footerHeight(document: TemplateDocument, measure: Measurer): number {
  return new LayoutEngine(document, measure).footerHeight();
}

export class LayoutEngine {
  private readonly regular: FontFace;
  private readonly bold: FontFace;
  private readonly size: number;
  private readonly colors: TemplateDocument['theme']['colors'];
  /** The branding logo, checked once per document however many header blocks draw it. */
  private readonly logo: string | null;

  constructor(
    private readonly document: TemplateDocument,
    private readonly measure: Measurer,
  ) {
    this.regular = FONT_FACES[document.theme.font_family].regular;
    this.bold = FONT_FACES[document.theme.font_family].bold;
    this.size = document.theme.font_size;
    this.colors = document.theme.colors;
    const stored = document.branding.logo;
    this.logo = stored !== null && isReadableLogo(stored) ? stored : null;
  }

  layout(content: LayoutContent, options: LayoutOptions = {}): Layout {
    const { width, height } = PAGE_POINTS[this.document.theme.page.size];
    const footerLines = this.footerLines(width);
    const footerHeight = this.checkedFooterHeight(footerLines, height);
    const page = new PageWriter(width, height, this.document, footerHeight, options.maxPages ?? Infinity);
    let complete = true;
    try {
      if (content.kind === 'printed') {
        this.document.blocks.forEach((block, index) => {
          if (index > 0) page.y += this.document.theme.spacing;
          this.block(page, block, content.data);
        });
      } else {
        this.email(page, content);
      }
    } catch (error) {
      if (!(error instanceof LastPageReached)) throw error;
      complete = false;
    }
    this.footers(page, footerLines, complete);
    return {
      width,
      height,
      title: content.kind === 'printed' ? `${content.data.title} ${content.data.meta[0].value}` : content.subject,
      faces: [this.regular, this.bold],
      pages: page.pages,
    };
  }

  footerHeight(): number {
    const { width, height } = PAGE_POINTS[this.document.theme.page.size];
    return this.checkedFooterHeight(this.footerLines(width), height);
  }

  private checkedFooterHeight(lines: string[], pageHeight: number): number {
    const height = lines.length * this.lineHeight(this.size - 1.5) + 10;
    const limit = pageHeight * RENDER_LIMITS.footerShare;
    if (height > limit) {
      const message = `template_json/footer/legal_text makes a footer ${Math.ceil(height)} points tall; a footer may take at most a quarter of the page (${Math.floor(limit)} points): shorten it or use fewer line breaks.`;
      throw fieldRefusal('template_json/footer/legal_text', 'OUT_OF_RANGE', message);
    }
    return height;
  }

  private lineHeight(size: number): number {
    return size * LINE_HEIGHT;
  }

  /** Greedy word wrap; a word wider than the line is broken between characters. */
  wrap(text: string, face: FontFace, size: number, width: number): string[] {
    const lines: string[] = [];
    for (const paragraph of printable(text).split(/\r?\n/)) {
      let current = '';
      for (const word of paragraph.split(/ +/)) {
        const candidate = current ? `${current} ${word}` : word;
        if (this.measure.width(candidate, face, size) <= width) {
          current = candidate;
          continue;
        }
        if (current) lines.push(current);
        current = '';
        let rest = word;
        // No glyph of the bundled fonts is narrower than a fifth of an em but zero-width marks: a
        // line never holds more than `cap` characters, so a 4,000-character word is cut into lines
        // by bisection over short prefixes, never by shaping the whole word again and again.
        const cap = Math.max(2, Math.ceil(width / (size * 0.2)));
        while (rest && (rest.length > cap || this.measure.width(rest, face, size) > width)) {
          let fits = 1;
          let tooLong = Math.min(rest.length, cap) + 1;
          while (tooLong - fits > 1) {
            const middle = (fits + tooLong) >> 1;
            if (this.measure.width(rest.slice(0, middle), face, size) <= width) fits = middle;
            else tooLong = middle;
          }
          lines.push(rest.slice(0, fits));
          rest = rest.slice(fits);
        }
        current = rest;
      }
      lines.push(current);
    }
    return lines;
  }

  /** Draws wrapped text at the cursor, breaking pages between lines; returns nothing, moves the cursor. */
  private paragraph(
    page: PageWriter,
    text: string,
    options: { face?: FontFace; size?: number; color?: string; align?: Align; x?: number; width?: number } = {},
  ): void {
    const face = options.face ?? this.regular;
    const size = options.size ?? this.size;
    const x = options.x ?? page.left;
    const width = options.width ?? page.contentWidth;
    const lineHeight = this.lineHeight(size);
    for (const line of this.wrap(text, face, size, width)) {
      page.ensure(lineHeight);
      this.text(page, line, { face, size, color: options.color ?? this.colors.text, x, y: page.y, width, align: options.align });
      page.y += lineHeight;
    }
  }

  /** One line of text in a box of `width` starting at `x`, aligned inside it. */
  private text(
    page: { push(op: Op): void },
    text: string,
    at: { face: FontFace; size: number; color: string; x: number; y: number; width: number; align?: Align },
  ): void {
    const line = printable(text);
    if (!line) return;
    const measured = this.measure.width(line, at.face, at.size);
    const offset = at.align === 'right' ? at.width - measured : at.align === 'center' ? (at.width - measured) / 2 : 0;
    page.push({
      kind: 'text',
      x: at.x + offset,
      y: at.y,
      text: line,
      face: at.face,
      size: at.size,
      color: at.color,
      width: measured,
    });
  }

  private block(page: PageWriter, block: Block, data: SampleDocument): void {
    switch (block.type) {
      case 'header':
        return this.header(page, block.title ?? data.title, block.show_logo, block.align, data.seller.name);
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
        return this.paragraph(page, block.text, { align: block.align });
    }
  }

  /** Logo (or the company name) on the side `align` names, the title opposite; centred: both stacked. */
  private header(page: PageWriter, title: string, showLogo: boolean, align: Align, sellerName: string): void {
    const heading = this.document.theme.heading_size;
    const company = this.document.branding.company_name ?? sellerName;
    // A logo the PDF writer could not embed (a row stored before the check) is left out, never drawn half.
    const logo = showLogo ? this.logo : null;
    const markHeight = 44;
    const titleWidth = Math.min(page.contentWidth / 2, this.measure.width(title, this.bold, heading) + 2);
    page.ensure(markHeight);
    const top = page.y;
    const markWidth = align === 'center' ? page.contentWidth : page.contentWidth - titleWidth - 12;
    const markX = align === 'right' ? page.right - markWidth : page.left;
    if (logo) {
      const w = Math.min(150, markWidth);
      const x = align === 'right' ? page.right - w : align === 'center' ? page.left + (page.contentWidth - w) / 2 : page.left;
      page.push({ kind: 'image', x, y: top, w, h: markHeight, src: logo });
    } else if (showLogo && company) {
      const size = Math.max(10, heading * 0.65);
      this.text(page, this.wrap(company, this.bold, size, markWidth)[0] ?? '', {
        face: this.bold,
        size,
        color: this.colors.primary,
        x: markX,
        y: top + 6,
        width: markWidth,
        align,
      });
    }
    if (align === 'center') {
      page.y = top + (showLogo ? markHeight + 6 : 0);
      this.text(page, title, {
        face: this.bold,
        size: heading,
        color: this.colors.primary,
        x: page.left,
        y: page.y,
        width: page.contentWidth,
        align: 'center',
      });
      page.y += this.lineHeight(heading);
      return;
    }
    const titleX = align === 'right' ? page.left : page.right - titleWidth;
    this.text(page, title, {
      face: this.bold,
      size: heading,
      color: this.colors.primary,
      x: titleX,
      y: top + 4,
      width: titleWidth,
      align: align === 'right' ? 'left' : 'right',
    });
    page.y = top + Math.max(showLogo ? markHeight : 0, this.lineHeight(heading) + 4);
  }

  private parties(page: PageWriter, block: Extract<Block, { type: 'parties' }>, data: SampleDocument): void {
    const column = (page.contentWidth - 24) / 2;
    const small = this.size - 1;
    const rows = (party: SampleDocument['seller']) => [party.name, ...party.lines, ...(block.show_tax_ids ? [party.taxId] : [])];
    const height =
      this.lineHeight(small) + Math.max(rows(data.seller).length, rows(data.buyer).length) * this.lineHeight(this.size);
    page.ensure(height);
    const top = page.y;
    const seller = { ...data.seller, name: this.document.branding.company_name ?? data.seller.name };
    for (const [index, [label, party]] of (
      [
        [block.seller_label, seller],
        [block.buyer_label, data.buyer],
      ] as const
    ).entries()) {
      const x = page.left + index * (column + 24);
      let y = top;
      this.text(page, label.toUpperCase(), { face: this.bold, size: small, color: this.colors.muted, x, y, width: column });
      y += this.lineHeight(small) + 2;
      rows(party).forEach((row, line) => {
        for (const wrapped of this.wrap(row, line === 0 ? this.bold : this.regular, this.size, column)) {
          this.text(page, wrapped, {
            face: line === 0 ? this.bold : this.regular,
            size: this.size,
            color: this.colors.text,
            x,
            y,
            width: column,
          });
          y += this.lineHeight(this.size);
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
    const small = this.size - 1;
    for (let start = 0; start < entries.length; start += perRow) {
      const cells = entries.slice(start, start + perRow).map((entry) => ({
        labels: this.wrap(entry.label, this.regular, small, cell - 6),
        values: this.wrap(entry.value, this.bold, this.size, cell - 6),
      }));
      const labelLines = Math.max(...cells.map((entry) => entry.labels.length));
      const valueLines = Math.max(...cells.map((entry) => entry.values.length));
      const height = labelLines * this.lineHeight(small) + valueLines * this.lineHeight(this.size) + 6;
      page.ensure(height);
      page.push({ kind: 'line', x1: page.left, y1: page.y, x2: page.right, y2: page.y, color: this.colors.border, width: 0.75 });
      const top = page.y + 5;
      cells.forEach((entry, index) => {
        const x = page.left + index * cell;
        entry.labels.forEach((line, number) =>
          this.text(page, line, {
            face: this.regular,
            size: small,
            color: this.colors.muted,
            x,
            y: top + number * this.lineHeight(small),
            width: cell - 6,
          }),
        );
        const valueTop = top + labelLines * this.lineHeight(small);
        entry.values.forEach((line, number) =>
          this.text(page, line, {
            face: this.bold,
            size: this.size,
            color: this.colors.text,
            x,
            y: valueTop + number * this.lineHeight(this.size),
            width: cell - 6,
          }),
        );
      });
      page.y = top + height - 4;
    }
    page.push({ kind: 'line', x1: page.left, y1: page.y, x2: page.right, y2: page.y, color: this.colors.border, width: 0.75 });
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
    const cellText = (key: LineItemColumn, item: SampleDocument['lines'][number]) =>
      ({
        description: item.description,
        quantity: formatQuantity(item.quantity),
        unit_price: formatAmount(item.unitPrice),
        tax_rate: formatRate(item.taxRate),
        amount: formatAmount(item.amount),
      })[key];
    const headerHeight = this.lineHeight(this.size) + padding * 2;
    const drawHeader = () => {
      page.push({
        kind: 'rect',
        x: page.left,
        y: page.y,
        w: page.contentWidth,
        h: headerHeight,
        fill: this.colors.table_header_background,
      });
      let x = page.left;
      block.columns.forEach((column, index) => {
        const label = column.label ?? DEFAULT_COLUMN_LABELS[column.key];
        const shown = this.wrap(label, this.bold, this.size, widths[index] - padding * 2)[0] ?? '';
        this.text(page, shown, {
          face: this.bold,
          size: this.size,
          color: this.colors.text,
          x: x + padding,
          y: page.y + padding,
          width: widths[index] - padding * 2,
          align: numeric(column.key) ? 'right' : 'left',
        });
        x += widths[index];
      });
      page.y += headerHeight;
    };
    page.ensure(headerHeight + this.lineHeight(this.size) + padding * 2);
    drawHeader();
    const stripe = mix(this.colors.table_header_background, '#ffffff', 0.55);
    data.lines.forEach((item, row) => {
      const cells = block.columns.map((column, index) =>
        this.wrap(cellText(column.key, item), this.regular, this.size, widths[index] - padding * 2),
      );
      const height = Math.max(...cells.map((lines) => lines.length)) * this.lineHeight(this.size) + padding * 2;
      if (page.ensure(height)) drawHeader();
      if (block.striped && row % 2 === 1)
        page.push({ kind: 'rect', x: page.left, y: page.y, w: page.contentWidth, h: height, fill: stripe });
      let x = page.left;
      cells.forEach((lines, index) => {
        lines.forEach((line, number) =>
          this.text(page, line, {
            face: this.regular,
            size: this.size,
            color: this.colors.text,
            x: x + padding,
            y: page.y + padding + number * this.lineHeight(this.size),
            width: widths[index] - padding * 2,
            align: numeric(block.columns[index].key) ? 'right' : 'left',
          }),
        );
        x += widths[index];
      });
      page.y += height;
      page.push({ kind: 'line', x1: page.left, y1: page.y, x2: page.right, y2: page.y, color: this.colors.border, width: 0.5 });
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
    const lineHeight = this.lineHeight(this.size) + 4;
    page.ensure(rows.length * lineHeight + 6);
    for (const row of rows) {
      if (row.strong) {
        page.push({ kind: 'line', x1: x, y1: page.y + 1, x2: page.right, y2: page.y + 1, color: this.colors.text, width: 1 });
        page.y += 4;
      }
      const face = row.strong ? this.bold : this.regular;
      const size = row.strong ? this.size + 2 : this.size;
      this.text(page, row.label, {
        face,
        size,
        color: row.strong ? this.colors.text : this.colors.muted,
        x,
        y: page.y,
        width: width * 0.62,
      });
      this.text(page, row.value, {
        face,
        size,
        color: this.colors.text,
        x: x + width * 0.62,
        y: page.y,
        width: width * 0.38,
        align: 'right',
      });
      page.y += row.strong ? this.lineHeight(size) + 4 : lineHeight;
    }
  }

  private titled(page: PageWriter, title: string | null, text: string): void {
    if (title) {
      page.ensure(this.lineHeight(this.size) * 2);
      this.text(page, title, {
        face: this.bold,
        size: this.size,
        color: this.colors.primary,
        x: page.left,
        y: page.y,
        width: page.contentWidth,
      });
      page.y += this.lineHeight(this.size) + 2;
    }
    this.paragraph(page, text, { color: this.colors.text });
  }

  private email(page: PageWriter, content: Extract<LayoutContent, { kind: 'email' }>): void {
    this.header(page, 'E-mail', true, 'left', content.company);
    page.y += this.document.theme.spacing;
    this.text(page, 'SUBJECT', {
      face: this.bold,
      size: this.size - 1,
      color: this.colors.muted,
      x: page.left,
      y: page.y,
      width: page.contentWidth,
    });
    page.y += this.lineHeight(this.size - 1) + 2;
    this.paragraph(page, content.subject, { face: this.bold, size: this.size + 3 });
    if (content.preheader) this.paragraph(page, content.preheader, { color: this.colors.muted });
    page.y += 6;
    page.push({ kind: 'line', x1: page.left, y1: page.y, x2: page.right, y2: page.y, color: this.colors.border, width: 0.75 });
    page.y += this.document.theme.spacing;
    this.paragraph(page, content.body, { size: this.size + 1 });
  }

  private footerLines(width: number): string[] {
    const { margins } = this.document.theme.page;
    const legal = this.document.footer.legal_text;
    return legal ? this.wrap(legal, this.regular, this.size - 1.5, width - margins.left - margins.right - 70) : [];
  }

  /** Footers on every page; "Page n of N" only when the layout is complete (a thumbnail's is not). */
  private footers(page: PageWriter, lines: string[], complete: boolean): void {
    const { margins } = this.document.theme.page;
    const size = this.size - 1.5;
    const total = page.pages.length;
    page.pages.forEach((ops, index) => {
      let y = page.height - margins.bottom - lines.length * this.lineHeight(size) + 4;
      const top = y - 6;
      const sink = { push: (op: Op) => page.pushTo(ops, op) };
      sink.push({
        kind: 'line',
        x1: margins.left,
        y1: top,
        x2: page.width - margins.right,
        y2: top,
        color: this.colors.border,
        width: 0.5,
      });
      for (const line of lines) {
        this.text(sink, line, {
          face: this.regular,
          size,
          color: this.colors.muted,
          x: margins.left,
          y,
          width: page.width - margins.left - margins.right - 70,
        });
        y += this.lineHeight(size);
      }
      if (this.document.footer.show_page_numbers) {
        const label = complete ? `Page ${index + 1} of ${total}` : `Page ${index + 1}`;
        const measured = this.measure.width(label, this.regular, size);
        sink.push({
          kind: 'text',
          x: page.width - margins.right - measured,
          y: top + 6,
          text: label,
          face: this.regular,
          size,
          color: this.colors.muted,
          width: measured,
        });
      }
    });
  }
}
