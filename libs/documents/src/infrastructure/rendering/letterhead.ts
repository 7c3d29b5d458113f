import { Align } from '../../domain/template-document';
import { isReadableLogo } from '../../domain/logo';
import { PageWriter } from './page-writer';
import { Typesetter } from './typesetter';

/** The header a printed document's header block and an e-mail preview both open with. */
export class Letterhead {
  /** The branding logo, checked once per document however many header blocks draw it. */
  private readonly logo: string | null;

  constructor(private readonly type: Typesetter) {
    const stored = type.document.branding.logo;
    this.logo = stored !== null && isReadableLogo(stored) ? stored : null;
  }

  /** Logo (or the company name) on the side `align` names, the title opposite; centred: both stacked. */
  draw(page: PageWriter, title: string, showLogo: boolean, align: Align, sellerName: string): void {
    const { type } = this;
    const heading = type.document.theme.heading_size;
    const company = type.document.branding.company_name ?? sellerName;
    // A logo the PDF writer could not embed (a row stored before the check) is left out, never drawn half.
    const logo = showLogo ? this.logo : null;
    const markHeight = 44;
    const titleWidth = Math.min(page.contentWidth / 2, type.measure.width(title, type.bold, heading) + 2);
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
      type.text(page, type.wrap(company, type.bold, size, markWidth)[0] ?? '', {
        face: type.bold,
        size,
        color: type.colors.primary,
        x: markX,
        y: top + 6,
        width: markWidth,
        align,
      });
    }
    if (align === 'center') {
      page.y = top + (showLogo ? markHeight + 6 : 0);
      type.text(page, title, {
        face: type.bold,
        size: heading,
        color: type.colors.primary,
        x: page.left,
        y: page.y,
        width: page.contentWidth,
        align: 'center',
      });
      page.y += type.lineHeight(heading);
      return;
    }
    const titleX = align === 'right' ? page.left : page.right - titleWidth;
    type.text(page, title, {
      face: type.bold,
      size: heading,
      color: type.colors.primary,
      x: titleX,
      y: top + 4,
      width: titleWidth,
      align: align === 'right' ? 'left' : 'right',
    });
    page.y = top + Math.max(showLogo ? markHeight : 0, type.lineHeight(heading) + 4);
  }
}
