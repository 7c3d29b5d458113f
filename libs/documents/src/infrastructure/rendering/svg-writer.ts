import { Layout, Measurer } from './display-list';

/** Thumbnail width in CSS pixels; the height follows the page's aspect ratio. */
export const THUMBNAIL_WIDTH = 240;

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const n = (value: number) => String(Math.round(value * 100) / 100);

/**
 * The first page of a layout as an SVG miniature: every rectangle, rule, image and text run at
 * its PDF position. Each run is stretched to its measured width (`textLength`), so the miniature
 * keeps the real layout even where the viewer substitutes the font.
 */
export function writeSvg(layout: Layout, measurer: Measurer): string {
  const height = (THUMBNAIL_WIDTH * layout.height) / layout.width;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${THUMBNAIL_WIDTH}" height="${n(height)}" viewBox="0 0 ${n(layout.width)} ${n(layout.height)}">`,
    `<title>${escapeXml(layout.title)}</title>`,
    `<rect x="0" y="0" width="${n(layout.width)}" height="${n(layout.height)}" fill="#ffffff"/>`,
  ];
  for (const op of layout.pages[0] ?? []) {
    switch (op.kind) {
      case 'rect':
        parts.push(`<rect x="${n(op.x)}" y="${n(op.y)}" width="${n(op.w)}" height="${n(op.h)}" fill="${op.fill}"/>`);
        break;
      case 'line':
        parts.push(
          `<line x1="${n(op.x1)}" y1="${n(op.y1)}" x2="${n(op.x2)}" y2="${n(op.y2)}" stroke="${op.color}" stroke-width="${n(op.width)}"/>`,
        );
        break;
      case 'image':
        parts.push(
          `<image x="${n(op.x)}" y="${n(op.y)}" width="${n(op.w)}" height="${n(op.h)}" preserveAspectRatio="xMinYMid meet" href="${escapeXml(op.src)}"/>`,
        );
        break;
      case 'text':
        parts.push(
          `<text x="${n(op.x)}" y="${n(op.y + measurer.ascent(op.face, op.size))}" font-family="${op.face.family}, sans-serif"` +
            `${op.face.weight === 'bold' ? ' font-weight="bold"' : ''} font-size="${n(op.size)}" fill="${op.color}"` +
            ` textLength="${n(op.width)}" lengthAdjust="spacingAndGlyphs">${escapeXml(op.text)}</text>`,
        );
        break;
    }
  }
  parts.push(
    `<rect x="0.5" y="0.5" width="${n(layout.width - 1)}" height="${n(layout.height - 1)}" fill="none" stroke="#d0d5dd"/>`,
  );
  parts.push('</svg>');
  return parts.join('\n');
}
