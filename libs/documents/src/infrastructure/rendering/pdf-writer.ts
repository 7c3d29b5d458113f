import PDFDocument from 'pdfkit';
import { FontFace, parsedFont, sharedLayoutCache } from './fonts';
import { Layout, Measurer } from './display-list';

/**
 * Fixed document dates: the PDF's file identifier derives from them, so the same layout gives the
 * same bytes on every run and every instance (pdfkit is otherwise deterministic).
 */
const FIXED_DATE = new Date('2026-01-01T00:00:00.000Z');

type Doc = InstanceType<typeof PDFDocument>;

/**
 * A document whose fonts are the template's family: pdfkit's default (Helvetica, an AFM parsed
 * per document) is never loaded, and each face's word cache is the process-wide one.
 */
function newDocument(faces: readonly FontFace[]): Doc {
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: true,
    margin: 0,
    // pdfkit takes a parsed fontkit font as well as bytes.
    font: parsedFont(faces[0]) as unknown as string,
    info: { Producer: 'Billing Platform API', Creator: 'Billing Platform API', CreationDate: FIXED_DATE, ModDate: FIXED_DATE },
  });
  for (const face of faces) {
    doc.registerFont(face.key, parsedFont(face) as unknown as Buffer);
    const font = (doc.font(face.key) as unknown as { _font: { layoutCache?: Record<string, unknown> } })._font;
    font.layoutCache = sharedLayoutCache(face);
  }
  return doc;
}

/** Measures with the embedded fonts' own metrics (pdfkit/fontkit), the same the PDF is drawn with. */
export class PdfMeasurer implements Measurer {
  private readonly cache = new Map<string, number>();

  constructor(private readonly doc: Doc) {}

  width(text: string, face: FontFace, size: number): number {
    const key = `${face.key}|${size}|${text}`;
    let width = this.cache.get(key);
    if (width === undefined) {
      width = this.doc.font(face.key).fontSize(size).widthOfString(text);
      this.cache.set(key, width);
    }
    return width;
  }

  ascent(face: FontFace, size: number): number {
    const font = (this.doc.font(face.key) as unknown as { _font: { ascender: number } })._font;
    return (font.ascender / 1000) * size;
  }
}

/** A measurer for a template's font family (its regular and bold faces). */
export function newMeasurer(faces: readonly FontFace[]): PdfMeasurer {
  return new PdfMeasurer(newDocument(faces));
}

/** Draws a layout into a PDF with the template's fonts embedded (subset). */
export function writePdf(layout: Layout): Promise<Buffer> {
  const doc = newDocument(layout.faces);
  doc.info.Title = layout.title;
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const images = new ImageCache(doc);
  for (const ops of layout.pages) {
    doc.addPage({ size: [layout.width, layout.height], margin: 0 });
    for (const op of ops) {
      switch (op.kind) {
        case 'rect':
          doc.rect(op.x, op.y, op.w, op.h).fill(op.fill);
          break;
        case 'line':
          doc.moveTo(op.x1, op.y1).lineTo(op.x2, op.y2).lineWidth(op.width).strokeColor(op.color).stroke();
          break;
        case 'text':
          doc.font(op.face.key).fontSize(op.size).fillColor(op.color).text(op.text, op.x, op.y, { lineBreak: false, lineGap: 0 });
          break;
        case 'image':
          images.draw(op);
          break;
      }
    }
  }
  doc.end();
  return done;
}

/** pdfkit's opened image (its typings do not declare `openImage`); `image()` takes it in place of bytes. */
type PdfImage = object;

/**
 * Each logo decoded and embedded once per document: every header block that shows it draws the
 * same image object (pdfkit writes it once and refers to it from each page).
 */
class ImageCache {
  private readonly images = new Map<string, PdfImage | null>();

  constructor(private readonly doc: Doc) {}

  draw(op: { x: number; y: number; w: number; h: number; src: string }): void {
    const image = this.open(op.src);
    // Left-aligned (pdfkit's default), vertically centred: as the SVG's xMinYMid.
    if (image) this.doc.image(image as unknown as Buffer, op.x, op.y, { fit: [op.w, op.h], valign: 'center' });
  }

  private open(src: string): PdfImage | null {
    if (!this.images.has(src)) {
      try {
        const bytes = Buffer.from(src.slice(src.indexOf(',') + 1), 'base64');
        this.images.set(src, (this.doc as unknown as { openImage(src: Buffer): PdfImage }).openImage(bytes));
      } catch {
        // A logo the image decoder cannot read (its header looked right) is left out, never a failed render.
        this.images.set(src, null);
      }
    }
    return this.images.get(src)!;
  }
}
