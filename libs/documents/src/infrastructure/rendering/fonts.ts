import { existsSync, readFileSync } from 'node:fs';
import * as fontkit from 'fontkit';
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
const parsed = new Map<string, fontkit.Font>();

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

/**
 * The parsed font, read and parsed once per process and shared by every document: parsing a
 * 700 KB TrueType file took half of a render. Each PDF still embeds its own subset.
 */
export function parsedFont(face: FontFace): fontkit.Font {
  let font = parsed.get(face.key);
  if (!font) {
    font = fontkit.create(readFileSync(join(fontsDir(), face.file))) as fontkit.Font;
    parsed.set(face.key, font);
  }
  return font;
}

/**
 * Shaped runs kept per face, bounded by their total length in characters (a shaped character
 * costs about a hundred bytes): user text cannot grow the cache without end.
 */
const LAYOUT_CACHE_CHARACTERS = 400_000;
/** pdfkit shapes word by word; a line-long "word" (no spaces) is at most a few hundred characters. */
const MAX_CACHED_RUN = 256;
const layoutCaches = new Map<string, Record<string, unknown>>();

/**
 * pdfkit shapes text word by word and caches each shaped (and scaled) word in its per-document
 * font's `layoutCache`, a plain object it only reads and adds to. Sharing one bounded cache per
 * face across documents lets a render reuse the words every earlier render shaped (labels,
 * amounts, the sample's lines): shaping was a third of a render. The runs are the same whichever
 * document shaped them (same font, same scale), so output bytes do not change.
 */
export function sharedLayoutCache(face: FontFace): Record<string, unknown> {
  let cache = layoutCaches.get(face.key);
  if (!cache) {
    const entries = new Map<string, unknown>();
    let characters = 0;
    cache = new Proxy(Object.create(null) as Record<string, unknown>, {
      get: (_target, key) => (typeof key === 'string' ? entries.get(key) : undefined),
      set: (_target, key, value) => {
        if (typeof key !== 'string') return false;
        if (key.length > MAX_CACHED_RUN || entries.has(key)) return true;
        entries.set(key, value);
        characters += key.length;
        for (const oldest of entries.keys()) {
          if (characters <= LAYOUT_CACHE_CHARACTERS) break;
          entries.delete(oldest);
          characters -= oldest.length;
        }
        return true;
      },
    });
    layoutCaches.set(face.key, cache);
  }
  return cache;
}
