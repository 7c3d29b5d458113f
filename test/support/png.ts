import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/**
 * A PNG built byte by byte: `width` × `height` RGBA pixels of one colour (8-bit, filter 0 on every
 * row), with knobs that break exactly one thing for the refusal tests.
 */
export function png(
  options: {
    width?: number;
    height?: number;
    rgba?: [number, number, number, number];
    filterByte?: number;
    badCrc?: boolean;
    interlace?: number;
    bitDepth?: number;
    /** IDAT rows actually written (default: height). */
    rows?: number;
  } = {},
): Buffer {
  const { width = 4, height = 2, rgba = [122, 31, 61, 255], filterByte = 0, interlace = 0, bitDepth = 8 } = options;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = 6;
  header[12] = interlace;
  const row = Buffer.concat([Buffer.from([filterByte]), Buffer.concat(Array.from({ length: width }, () => Buffer.from(rgba)))]);
  const ihdr = chunk('IHDR', header);
  if (options.badCrc) ihdr[ihdr.length - 1] ^= 0xff;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ihdr,
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: options.rows ?? height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function pngDataUri(options: Parameters<typeof png>[0] = {}): string {
  return `data:image/png;base64,${png(options).toString('base64')}`;
}
