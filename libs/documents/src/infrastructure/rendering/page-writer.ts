import { TemplateDocument } from '../../domain/template-document';
import { Op, OpSink } from './display-list';
import { RENDER_LIMITS, renderLimitExceeded } from './render-limits';

/** Thrown when a layout reaches the last page its caller wants (a thumbnail: the first). */
export class LastPageReached extends Error {}

/** The cursor down the pages of a layout: margins, page breaks, and the bound on pages and operations. */
export class PageWriter implements OpSink {
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

  /** A horizontal rule across the content width at the cursor. */
  rule(color: string, width: number): void {
    this.push({ kind: 'line', x1: this.left, y1: this.y, x2: this.right, y2: this.y, color, width });
  }
}
