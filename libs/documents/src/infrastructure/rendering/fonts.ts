import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FontFamily } from '../../domain/template-document';

/**
 * The bundled fonts (DejaVu, Bitstream Vera licence: libs/documents/assets/fonts/LICENSE-DejaVu.txt),
 * embedded (subset) in every PDF so that a document looks the same in every viewer. They cover
 * Latin, Greek and Cyrillic.
 */
export interface FontFace {
  /** The name a PDF registers and an SVG or HTML names (`family` + weight). */
  key: string;
  family: FontFamily;
  weight: 'normal' | 'bold';
  file: string;
}

export const FONT_FACES: Record<FontFamily, { regular: FontFace; bold: FontFace }> = {
  'DejaVu Sans': {
    regular: { key: 'DejaVuSans', family: 'DejaVu Sans', weight: 'normal', file: 'DejaVuSans.ttf' },
    bold: { key: 'DejaVuSans-Bold', family: 'DejaVu Sans', weight: 'bold', file: 'DejaVuSans-Bold.ttf' },
  },
  'DejaVu Serif': {
    regular: { key: 'DejaVuSerif', family: 'DejaVu Serif', weight: 'normal', file: 'DejaVuSerif.ttf' },
    bold: { key: 'DejaVuSerif-Bold', family: 'DejaVu Serif', weight: 'bold', file: 'DejaVuSerif-Bold.ttf' },
  },
};

export const ALL_FACES: FontFace[] = Object.values(FONT_FACES).flatMap((faces) => [faces.regular, faces.bold]);

let fontDirectory: string | undefined;
const bytes = new Map<string, Buffer>();

/**
 * libs/documents/assets/fonts under the project root: found by walking up from this file, so it
 * is the same from the sources (tests) and from dist/ (the built app, the container image).
 */
function fontsDir(): string {
  if (fontDirectory) return fontDirectory;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'libs', 'documents', 'assets', 'fonts');
    if (existsSync(join(candidate, 'DejaVuSans.ttf'))) return (fontDirectory = candidate);
    if (dirname(dir) === dir) throw new Error('The bundled fonts (libs/documents/assets/fonts) are missing.');
  }
}

/** The font file's bytes, read once per process. */
export function fontBytes(face: FontFace): Buffer {
  let data = bytes.get(face.key);
  if (!data) {
    data = readFileSync(join(fontsDir(), face.file));
    bytes.set(face.key, data);
  }
  return data;
}
