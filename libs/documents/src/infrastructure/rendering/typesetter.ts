import { Align, TemplateDocument } from '../../domain/template-document';
import { Measurer, OpSink, printable } from './display-list';
import { FONT_FACES, FontFace } from './fonts';
import { PageWriter } from './page-writer';

const LINE_HEIGHT = 1.3;

/** A line of text's box: where, in which face, size and colour, aligned inside `width`. */
export interface TextBox {
  face: FontFace;
  size: number;
  color: string;
  x: number;
  y: number;
  width: number;
  align?: Align;
}

/** A template's type: its faces, size and colours, and the measuring, wrapping and drawing of text in them. */
export class Typesetter {
  readonly regular: FontFace;
  readonly bold: FontFace;
  readonly size: number;
  readonly colors: TemplateDocument['theme']['colors'];

  constructor(
    readonly document: TemplateDocument,
    readonly measure: Measurer,
  ) {
    this.regular = FONT_FACES[document.theme.font_family].regular;
    this.bold = FONT_FACES[document.theme.font_family].bold;
    this.size = document.theme.font_size;
    this.colors = document.theme.colors;
  }

  lineHeight(size: number): number {
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
  paragraph(
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
  text(sink: OpSink, text: string, at: TextBox): void {
    const line = printable(text);
    if (!line) return;
    const measured = this.measure.width(line, at.face, at.size);
    const offset = at.align === 'right' ? at.width - measured : at.align === 'center' ? (at.width - measured) / 2 : 0;
    sink.push({
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
}
