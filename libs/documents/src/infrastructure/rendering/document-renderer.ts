import { Injectable } from '@nestjs/common';
import { FooterBounds, RenderFormat, RenderInput } from '../../application/render-ports';
import { PrintedDocumentType } from '../../domain/document-template';
import { emailKind, exampleValues, substitute } from '../../domain/email-kinds';
import { TemplateDocument } from '../../domain/template-document';
import { printedHtml, renderEmail } from './html-writer';
import { FONT_FACES } from './fonts';
import { Layout, printable, TextOp } from './display-list';
import { footerHeight, LayoutContent, LayoutEngine, LayoutOptions } from './layout';
import { newMeasurer, writePdf } from './pdf-writer';
import { sampleDocument } from './sample-data';
import { writeSvg } from './svg-writer';

/**
 * Renders a template filled with sample data: a PDF (the layout drawn with the embedded fonts),
 * an HTML and a plain-text render, and an SVG miniature of the first page. Pure: the same input
 * gives the same bytes.
 */
@Injectable()
export class DocumentRenderer implements FooterBounds {
  async render(input: RenderInput, format: RenderFormat): Promise<Buffer> {
    switch (format) {
      case 'pdf':
        return writePdf(this.layout(input));
      case 'html':
        return Buffer.from(this.html(input));
      case 'text':
        return Buffer.from(this.text(input));
    }
  }

  /** The first page only is laid out: what follows it costs a thumbnail nothing. */
  svg(input: RenderInput): string {
    const measurer = measurerFor(input.document);
    return writeSvg(this.layout(input, { maxPages: 1 }, measurer), measurer);
  }

  layout(input: RenderInput, options: LayoutOptions = {}, measurer = measurerFor(input.document)): Layout {
    return new LayoutEngine(input.document, measurer).layout(this.content(input), options);
  }

  /** Refuses, pointing at the field, a document whose footer would leave too little of each page to its content. */
  checkBounds(document: TemplateDocument): void {
    footerHeight(document, measurerFor(document));
  }

  html(input: RenderInput): string {
    if (input.kind === 'email') return renderEmail(input.document, emailKind(input.anchorKey!)!).html;
    return printedHtml(input.document, sampleDocument(input.documentType as PrintedDocumentType, { lineCount: input.lineCount }));
  }

  /** E-mail: subject line, blank line, the plain-text body. Printed: the layout's text, line by line, page by page. */
  text(input: RenderInput): string {
    if (input.kind === 'email') {
      const email = renderEmail(input.document, emailKind(input.anchorKey!)!);
      return `Subject: ${email.subject}\n\n${email.text}`;
    }
    return this.layout(input)
      .pages.map((ops) => linesOf(ops.filter((op): op is TextOp => op.kind === 'text')).join('\n'))
      .join('\n\n\f\n');
  }

  private content(input: RenderInput): LayoutContent {
    if (input.kind === 'email') {
      const email = input.document.email!;
      const values = exampleValues(emailKind(input.anchorKey!)!);
      return {
        kind: 'email',
        subject: printable(substitute(email.subject, values)),
        preheader: email.preheader ? substitute(email.preheader, values) : null,
        body: substitute(email.body, values),
        company: values['organization.name'] ?? '',
      };
    }
    return { kind: 'printed', data: sampleDocument(input.documentType as PrintedDocumentType, { lineCount: input.lineCount }) };
  }
}

function measurerFor(document: TemplateDocument) {
  const faces = FONT_FACES[document.theme.font_family];
  return newMeasurer([faces.regular, faces.bold]);
}

/** Text runs grouped into lines by their top (within a point), left to right. */
function linesOf(runs: TextOp[]): string[] {
  const rows = new Map<number, TextOp[]>();
  for (const run of runs) {
    const key = [...rows.keys()].find((top) => Math.abs(top - run.y) < 1) ?? run.y;
    rows.set(key, [...(rows.get(key) ?? []), run]);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, row]) =>
      row
        .sort((a, b) => a.x - b.x)
        .map((run) => run.text)
        .join('   '),
    );
}
