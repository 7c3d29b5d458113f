import { FontFace } from './fonts';

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

/** Where drawing operations go: a page writer's current page, or one page's footer. */
export interface OpSink {
  push(op: Op): void;
}

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

/** Text as it may be drawn: no control characters (XML and PDF strings refuse some), tabs as spaces. */
export function printable(text: string): string {
  return text.replace(/\t/g, ' ').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g, '');
}
