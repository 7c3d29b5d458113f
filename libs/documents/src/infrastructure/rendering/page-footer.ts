import { fieldRefusal } from '../../domain/document-template';
import { Op } from './display-list';
import { PageWriter } from './page-writer';
import { RENDER_LIMITS } from './render-limits';
import { Typesetter } from './typesetter';

/** The legal text and page numbers at the bottom of every page. */
export class PageFooter {
  readonly lines: string[];
  readonly height: number;

  /** Refuses, naming the field, a footer that would take more than its share of the page (each content line would then get a page of its own). */
  constructor(
    private readonly type: Typesetter,
    pageWidth: number,
    pageHeight: number,
  ) {
    const { margins } = type.document.theme.page;
    const legal = type.document.footer.legal_text;
    this.lines = legal ? type.wrap(legal, type.regular, this.size, pageWidth - margins.left - margins.right - 70) : [];
    this.height = this.lines.length * type.lineHeight(this.size) + 10;
    const limit = pageHeight * RENDER_LIMITS.footerShare;
    if (this.height > limit) {
      const message = `template_json/footer/legal_text makes a footer ${Math.ceil(this.height)} points tall; a footer may take at most a quarter of the page (${Math.floor(limit)} points): shorten it or use fewer line breaks.`;
      throw fieldRefusal('template_json/footer/legal_text', 'OUT_OF_RANGE', message);
    }
  }

  private get size(): number {
    return this.type.size - 1.5;
  }

  /** Footers on every page; "Page n of N" only when the layout is complete (a thumbnail's is not). */
  draw(page: PageWriter, complete: boolean): void {
    const { type, lines, size } = this;
    const { margins } = type.document.theme.page;
    const total = page.pages.length;
    page.pages.forEach((ops, index) => {
      let y = page.height - margins.bottom - lines.length * type.lineHeight(size) + 4;
      const top = y - 6;
      const sink = { push: (op: Op) => page.pushTo(ops, op) };
      sink.push({
        kind: 'line',
        x1: margins.left,
        y1: top,
        x2: page.width - margins.right,
        y2: top,
        color: type.colors.border,
        width: 0.5,
      });
      for (const line of lines) {
        type.text(sink, line, {
          face: type.regular,
          size,
          color: type.colors.muted,
          x: margins.left,
          y,
          width: page.width - margins.left - margins.right - 70,
        });
        y += type.lineHeight(size);
      }
      if (type.document.footer.show_page_numbers) {
        const label = complete ? `Page ${index + 1} of ${total}` : `Page ${index + 1}`;
        const measured = type.measure.width(label, type.regular, size);
        sink.push({
          kind: 'text',
          x: page.width - margins.right - measured,
          y: top + 6,
          text: label,
          face: type.regular,
          size,
          color: type.colors.muted,
          width: measured,
        });
      }
    });
  }
}
