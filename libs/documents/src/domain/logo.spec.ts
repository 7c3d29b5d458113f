import { png, pngDataUri } from '../../../../test/support/png';
import { isReadableLogo, MAX_LOGO_PIXELS, MAX_LOGO_SIDE } from './logo';

const jpeg = (width: number, height: number, components = 3) => {
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    components,
    ...Array(9).fill(0),
  ]);
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46]);
  return `data:image/jpeg;base64,${Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]).toString('base64')}`;
};

describe('logo check', () => {
  it('accepts whole PNGs and JPEG frames of a logo’s size', () => {
    expect(isReadableLogo(pngDataUri())).toBe(true);
    expect(isReadableLogo(pngDataUri({ width: MAX_LOGO_SIDE, height: 1 }))).toBe(true);
    expect(isReadableLogo(jpeg(300, 100))).toBe(true);
  });

  it('refuses what the PDF writer could not embed, whatever the bytes claim', () => {
    const valid = png();
    const cases: Record<string, string> = {
      'bad checksum': pngDataUri({ badCrc: true }),
      'unknown row filter': pngDataUri({ filterByte: 9 }),
      interlaced: pngDataUri({ interlace: 1 }),
      '16-bit samples': pngDataUri({ bitDepth: 16 }),
      'too wide': pngDataUri({ width: MAX_LOGO_SIDE + 1, height: 1 }),
      'too many pixels (2048 × 2048, zeros: 24 KB compressed)': pngDataUri({
        width: MAX_LOGO_SIDE,
        height: MAX_LOGO_SIDE,
        rgba: [0, 0, 0, 0],
      }),
      'JPEG of too many pixels': jpeg(1025, MAX_LOGO_PIXELS / 1024),
      truncated: `data:image/png;base64,${valid.subarray(0, 40).toString('base64')}`,
      'no IEND': `data:image/png;base64,${valid.subarray(0, valid.length - 12).toString('base64')}`,
      'garbage after the header': `data:image/png;base64,${Buffer.concat([valid.subarray(0, 33), Buffer.alloc(64, 7)]).toString('base64')}`,
      'a PNG named jpeg': `data:image/jpeg;base64,${valid.toString('base64')}`,
      'another media type': `data:image/gif;base64,${valid.toString('base64')}`,
      'JPEG without a frame': `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xd9]).toString('base64')}`,
      'JPEG of 2 components': jpeg(10, 10, 2),
      'JPEG too tall': jpeg(10, MAX_LOGO_SIDE + 1),
      'not a data URI': 'https://example.com/logo.png',
    };
    for (const [name, uri] of Object.entries(cases))
      expect({ name, readable: isReadableLogo(uri) }).toEqual({ name, readable: false });
    // Pixels that inflate to more or fewer rows than the header says.
    expect(isReadableLogo(pngDataUri({ height: 3, rows: 2 }))).toBe(false);
    expect(isReadableLogo(pngDataUri({ height: 2, rows: 3 }))).toBe(false);
  });
});
