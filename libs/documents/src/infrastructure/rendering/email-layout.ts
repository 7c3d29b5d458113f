import { Letterhead } from './letterhead';
import { PageWriter } from './page-writer';
import { Typesetter } from './typesetter';

/** A rendered e-mail, as its preview lays it out. */
export interface EmailContent {
  subject: string;
  preheader: string | null;
  body: string;
  company: string;
}

/** The e-mail preview: the letterhead, the subject (and preheader) under a label, a rule, the body. */
export function layOutEmail(type: Typesetter, letterhead: Letterhead, page: PageWriter, content: EmailContent): void {
  letterhead.draw(page, 'E-mail', true, 'left', content.company);
  page.y += type.document.theme.spacing;
  type.text(page, 'SUBJECT', {
    face: type.bold,
    size: type.size - 1,
    color: type.colors.muted,
    x: page.left,
    y: page.y,
    width: page.contentWidth,
  });
  page.y += type.lineHeight(type.size - 1) + 2;
  type.paragraph(page, content.subject, { face: type.bold, size: type.size + 3 });
  if (content.preheader) type.paragraph(page, content.preheader, { color: type.colors.muted });
  page.y += 6;
  page.rule(type.colors.border, 0.75);
  page.y += type.document.theme.spacing;
  type.paragraph(page, content.body, { size: type.size + 1 });
}
