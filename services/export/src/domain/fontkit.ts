import { createRequire } from "node:module";

/*
 * fontkit is the font engine inside pdfkit. It is loaded through pdfkit's own resolution
 * so the fonts we measure with are exactly the objects pdfkit draws with (pdfkit accepts
 * a fontkit font wherever it takes a font file), and only the few members we use are typed.
 */

export interface FontkitFont {
  readonly postscriptName: string;
  readonly familyName: string;
  readonly unitsPerEm: number;
  hasGlyphForCodePoint(codePoint: number): boolean;
  glyphForCodePoint(codePoint: number): { advanceWidth: number };
  glyphsForString(text: string): Array<{ advanceWidth: number }>;
  layout(text: string): { advanceWidth: number };
}

interface FontkitCollection {
  readonly fonts: FontkitFont[];
}

interface Fontkit {
  create(data: Uint8Array, postscriptName?: string): FontkitFont | FontkitCollection;
}

const require = createRequire(import.meta.url);
const pdfkitPath = require.resolve("pdfkit");

export const fontkit = createRequire(pdfkitPath)("fontkit") as Fontkit;

/** pdfkit's CommonJS build, which shares the fontkit instance above. */
export const PDFDocument = require("pdfkit") as typeof import("pdfkit");

export function isCollection(font: FontkitFont | FontkitCollection): font is FontkitCollection {
  return Array.isArray((font as FontkitCollection).fonts);
}
