import { TemplateDocument } from '../../domain/template-document';
import { Layout, Measurer, PAGE_POINTS } from './display-list';
import { EmailContent, layOutEmail } from './email-layout';
import { FontFace } from './fonts';
import { Letterhead } from './letterhead';
import { PageFooter } from './page-footer';
import { LastPageReached, PageWriter } from './page-writer';
import { PrintedBlocks } from './printed-blocks';
import { SampleDocument } from './sample-data';
import { Typesetter } from './typesetter';

/** The content the layout fills a template with: a printed document's sample, or a rendered e-mail. */
export type LayoutContent = { kind: 'printed'; data: SampleDocument } | ({ kind: 'email' } & EmailContent);

export interface LayoutOptions {
  /** Lay out this many pages at most (a thumbnail needs one); the rest of the content is left out. */
  maxPages?: number;
}

/**
 * The height a footer takes at the bottom of each page, or a refusal naming the field when it
 * would take more than its share of the page (each content line would then get a page of its own).
 */
export function footerHeight(document: TemplateDocument, measure: Measurer): number {
  return new LayoutEngine(document, measure).footerHeight();
}

/** Lays a template filled with content out as a display list (display-list.ts), page by page. */
export class LayoutEngine {
  private readonly type: Typesetter;

  constructor(
    private readonly document: TemplateDocument,
    measure: Measurer,
  ) {
    this.type = new Typesetter(document, measure);
  }

  layout(content: LayoutContent, options: LayoutOptions = {}): Layout {
    const { width, height } = PAGE_POINTS[this.document.theme.page.size];
    const footer = new PageFooter(this.type, width, height);
    const page = new PageWriter(width, height, this.document, footer.height, options.maxPages ?? Infinity);
    const letterhead = new Letterhead(this.type);
    let complete = true;
    try {
      if (content.kind === 'printed') {
        const blocks = new PrintedBlocks(this.type, letterhead);
        this.document.blocks.forEach((block, index) => {
          if (index > 0) page.y += this.document.theme.spacing;
          blocks.draw(page, block, content.data);
        });
      } else {
        layOutEmail(this.type, letterhead, page, content);
      }
    } catch (error) {
      if (!(error instanceof LastPageReached)) throw error;
      complete = false;
    }
    footer.draw(page, complete);
    return {
      width,
      height,
      title: content.kind === 'printed' ? `${content.data.title} ${content.data.meta[0].value}` : content.subject,
      faces: [this.type.regular, this.type.bold],
      pages: page.pages,
    };
  }

  footerHeight(): number {
    const { width, height } = PAGE_POINTS[this.document.theme.page.size];
    return new PageFooter(this.type, width, height).height;
  }

  wrap(text: string, face: FontFace, size: number, width: number): string[] {
    return this.type.wrap(text, face, size, width);
  }
}
