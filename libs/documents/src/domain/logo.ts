import { crc32, inflateSync } from 'node:zlib';

/** Logos are small: each side at most this many pixels… */
export const MAX_LOGO_SIDE = 2048;
/** …and at most this many in all (what decoding costs: a 2048 × 2048 RGBA logo is 16 MB of pixels). */
export const MAX_LOGO_PIXELS = 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** PNG colour types the PDF writer embeds, with their channels; 8-bit samples (palettes: 1–8 bits). */
const PNG_CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Whether a logo (a PNG or JPEG data: URI) is an image the PDF writer can embed. A PNG is read
 * whole: chunk checksums, its header, every row of its decompressed pixels. This runs before a
 * document is stored or rendered, because the PNG decoder pdfkit uses fails in an asynchronous
 * callback, outside any try/catch: one malformed logo would otherwise take the process down.
 */
export function isReadableLogo(dataUri: string): boolean {
  const comma = dataUri.indexOf(',');
  if (comma < 0) return false;
  const head = dataUri.slice(0, comma);
  const bytes = Buffer.from(dataUri.slice(comma + 1), 'base64');
  if (head === 'data:image/png;base64') return isReadablePng(bytes);
  if (head === 'data:image/jpeg;base64') return isReadableJpeg(bytes);
  return false;
}

function withinBounds(width: number, height: number): boolean {
  return width >= 1 && height >= 1 && width <= MAX_LOGO_SIDE && height <= MAX_LOGO_SIDE && width * height <= MAX_LOGO_PIXELS;
}

function isReadablePng(bytes: Buffer): boolean {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return false;
  let header: { width: number; height: number; bitDepth: number; colorType: number } | undefined;
  let palette = false;
  let ended = false;
  const data: Buffer[] = [];
  for (let offset = 8; offset < bytes.length && !ended;) {
    if (offset + 12 > bytes.length) return false;
    const length = bytes.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (length > bytes.length || end > bytes.length) return false;
    const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== bytes.readUInt32BE(offset + 8 + length)) return false;
    if (header === undefined && type !== 'IHDR') return false;
    if (type === 'IHDR') {
      if (header !== undefined || length !== 13) return false;
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), bitDepth: body[8], colorType: body[9] };
      const [compression, filter, interlace] = [body[10], body[11], body[12]];
      const depthOk = header.colorType === 3 ? [1, 2, 4, 8].includes(header.bitDepth) : header.bitDepth === 8;
      if (PNG_CHANNELS[header.colorType] === undefined || !depthOk || compression !== 0 || filter !== 0 || interlace !== 0)
        return false;
      if (!withinBounds(header.width, header.height)) return false;
    } else if (type === 'PLTE') {
      palette = length > 0 && length % 3 === 0 && length <= 768;
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      ended = true;
    }
    offset = end;
  }
  if (!header || !ended || data.length === 0 || (header.colorType === 3 && !palette)) return false;
  const rowBytes = Math.ceil((header.width * PNG_CHANNELS[header.colorType] * header.bitDepth) / 8);
  const expected = header.height * (rowBytes + 1);
  let pixels: Buffer;
  try {
    pixels = inflateSync(Buffer.concat(data), { maxOutputLength: expected + 1 });
  } catch {
    return false;
  }
  if (pixels.length !== expected) return false;
  for (let row = 0; row < header.height; row += 1) if (pixels[row * (rowBytes + 1)] > 4) return false;
  return true;
}

/** Segments up to a baseline or progressive frame header with sane dimensions and 1, 3 or 4 components. */
function isReadableJpeg(bytes: Buffer): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return false;
  for (let offset = 2; offset + 4 <= bytes.length;) {
    if (bytes[offset] !== 0xff) return false;
    const marker = bytes[offset + 1];
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2 || offset + 2 + length > bytes.length) return false;
    if ([0xc0, 0xc1, 0xc2].includes(marker)) {
      if (length < 8) return false;
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      const components = bytes[offset + 9];
      return withinBounds(width, height) && [1, 3, 4].includes(components);
    }
    offset += 2 + length;
  }
  return false;
}
