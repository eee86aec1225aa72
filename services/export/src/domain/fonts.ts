import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fontkit, isCollection, type FontkitFont } from "./fontkit.js";
import type { ScriptClass } from "./scripts.js";

/*
 * The fonts the PDF renderer draws with. Text is split into runs by script and each run
 * gets the first font that covers all of it, preferring the fonts made for that script;
 * a character no font covers falls back to the primary (Latin) font and is counted as
 * missing. Reading font files is the only I/O the renderers do.
 */

/**
 * The fonts cannot be used as configured; `problems` names each one. The service turns it
 * into a configuration error at start.
 */
export class FontConfigError extends Error {
  override readonly name = "FontConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`Fonts for PDF exports:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export interface FontConfig {
  /**
   * Font files used before any other for every character they cover: a path, or
   * `path#PostScriptName` to pick one face of a collection (.ttc).
   */
  files?: readonly string[];
  /** Replaces the default directories: the known font files are looked for here (recursively), and any other font file here is used after them. */
  dir?: string;
  /** Defaults to Debian's, other Linux distributions', macOS's and Windows's font directories. */
  systemDirs?: readonly string[];
}

export const DEFAULT_FONT_DIRS: readonly string[] = [
  "/usr/share/fonts",
  "/usr/local/share/fonts",
  "/Library/Fonts",
  "/System/Library/Fonts",
  "C:\\Windows\\Fonts",
];

interface KnownFont {
  file: string;
  scripts: readonly ScriptClass[];
  /** Faces of a collection by language, most specific first; the last is the default. */
  variants?: ReadonlyArray<[language: RegExp, postscriptName: string]>;
}

const BASE: readonly ScriptClass[] = ["latin", "greek", "cyrillic", "common"];

/**
 * What Debian's fonts-noto-core, fonts-noto-cjk and fonts-dejavu-core install (plus the
 * usual names on macOS and Windows), best first. Noto covers the scripts of every
 * language the speech models support.
 */
export const KNOWN_FONTS: readonly KnownFont[] = [
  { file: "NotoSans-Regular.ttf", scripts: BASE },
  { file: "NotoSansArabic-Regular.ttf", scripts: ["arabic"] },
  { file: "NotoSansHebrew-Regular.ttf", scripts: ["hebrew"] },
  {
    file: "NotoSansCJK-Regular.ttc",
    scripts: ["cjk"],
    variants: [
      [/^ja\b/i, "NotoSansCJKjp-Regular"],
      [/^ko\b/i, "NotoSansCJKkr-Regular"],
      [/^zh-(hk|mo)\b/i, "NotoSansCJKhk-Regular"],
      [/^zh-(tw|hant)\b/i, "NotoSansCJKtc-Regular"],
      [/^/, "NotoSansCJKsc-Regular"],
    ],
  },
  { file: "NotoSansCJKsc-Regular.otf", scripts: ["cjk"] },
  { file: "NotoSansDevanagari-Regular.ttf", scripts: ["devanagari"] },
  { file: "NotoSansBengali-Regular.ttf", scripts: ["bengali"] },
  { file: "NotoSansGurmukhi-Regular.ttf", scripts: ["gurmukhi"] },
  { file: "NotoSansGujarati-Regular.ttf", scripts: ["gujarati"] },
  { file: "NotoSansTamil-Regular.ttf", scripts: ["tamil"] },
  { file: "NotoSansTelugu-Regular.ttf", scripts: ["telugu"] },
  { file: "NotoSansKannada-Regular.ttf", scripts: ["kannada"] },
  { file: "NotoSansMalayalam-Regular.ttf", scripts: ["malayalam"] },
  { file: "NotoSansSinhala-Regular.ttf", scripts: ["sinhala"] },
  { file: "NotoSansThai-Regular.ttf", scripts: ["thai"] },
  { file: "NotoSansLao-Regular.ttf", scripts: ["lao"] },
  { file: "NotoSansKhmer-Regular.ttf", scripts: ["khmer"] },
  { file: "NotoSansMyanmar-Regular.ttf", scripts: ["myanmar"] },
  { file: "NotoSansArmenian-Regular.ttf", scripts: ["armenian"] },
  { file: "NotoSansGeorgian-Regular.ttf", scripts: ["georgian"] },
  { file: "NotoSansEthiopic-Regular.ttf", scripts: ["ethiopic"] },
  { file: "NotoSansSyriac-Regular.ttf", scripts: ["syriac"] },
  { file: "NotoSansThaana-Regular.ttf", scripts: ["thaana"] },
  { file: "DejaVuSans.ttf", scripts: [...BASE, "arabic", "hebrew", "armenian", "georgian"] },
  { file: "NotoSansSymbols-Regular.ttf", scripts: ["common"] },
  { file: "NotoSansSymbols2-Regular.ttf", scripts: ["common"] },
  // macOS and Windows, for running the service outside Debian.
  { file: "Arial Unicode.ttf", scripts: [...BASE, "arabic", "hebrew", "cjk", "devanagari", "thai"] },
  { file: "arial.ttf", scripts: [...BASE, "arabic", "hebrew"] },
  { file: "msyh.ttc", scripts: ["cjk"] },
];

/** Scripts an export must be able to show (issue: Latin, Cyrillic, Greek, CJK, Arabic, Hebrew); sample characters. */
export const REQUIRED_SCRIPTS: ReadonlyArray<[ScriptClass, string]> = [
  ["latin", "Aé"],
  ["greek", "Ω"],
  ["cyrillic", "Ж"],
  ["cjk", "中あア한"],
  ["arabic", "ب"],
  ["hebrew", "א"],
];

const FONT_FILE = /\.(ttf|otf|ttc)$/i;
// Scripts with contextual shaping, and combining marks anywhere.
const SHAPED = /[\p{M}\u0590-\u08ff\u0900-\u0dff\u0e00-\u0eff\u0f00-\u109f\u1780-\u17ff\ufb1d-\ufdff\ufe70-\ufeff]/u;

function needsShaping(text: string): boolean {
  return SHAPED.test(text);
}
const MAX_WIDTH_CACHE = 100_000;

const MAX_LAYOUT_CACHE = 50_000;

interface GlyphRunLike {
  glyphs: unknown[];
  positions: Array<Record<string, number>>;
}

/**
 * The font as handed to pdfkit, with a faster layout. pdfkit lays out every distinct word
 * of every document through fontkit's OpenType engine (and caches it for that document
 * only), which was most of a PDF's rendering time. Here:
 *
 * - text that needs no shaping (see needsShaping: Latin, Greek, Cyrillic, CJK without
 *   combining marks) is laid out straight from the character map and advance widths,
 *   without kerning and optional ligatures (a small typographic loss in body text; "fi"
 *   stays two letters, which also keeps it searchable);
 * - shaped text (Arabic, Hebrew with marks, Indic...) goes through fontkit as before;
 * - both are remembered across documents. pdfkit scales a layout's positions in place,
 *   so each call gets its own copy of them.
 */
function withSharedLayoutCache(font: FontkitFont): FontkitFont {
  const layouts = new Map<string, GlyphRunLike>();
  const bound = new Map<PropertyKey, unknown>();
  const unshaped = (text: string): GlyphRunLike => {
    const glyphs = font.glyphsForString(text);
    return {
      glyphs,
      positions: glyphs.map((glyph) => ({ xAdvance: glyph.advanceWidth, yAdvance: 0, xOffset: 0, yOffset: 0 })),
    };
  };
  const layout = (text: string, features?: unknown, ...rest: unknown[]) => {
    const call = font.layout as unknown as (...args: unknown[]) => GlyphRunLike;
    if (features !== undefined || rest.length > 0) return call.call(font, text, features, ...rest);
    let run = layouts.get(text);
    if (!run) {
      run = needsShaping(text) ? call.call(font, text) : unshaped(text);
      if (layouts.size >= MAX_LAYOUT_CACHE) layouts.clear();
      layouts.set(text, run);
    }
    const positions = run.positions.map((position) => ({ ...position }));
    return {
      glyphs: run.glyphs,
      positions,
      get advanceWidth() {
        let width = 0;
        for (const position of positions) width += position.xAdvance ?? 0;
        return width;
      },
    };
  };
  return new Proxy(font, {
    get(target, property) {
      if (property === "layout") return layout;
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      let method = bound.get(property);
      if (!method) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(property, method);
      }
      return method;
    },
  });
}

export class FontFace {
  readonly #covered = new Map<number, boolean>();
  readonly #widths = new Map<string, number>();
  readonly #advances = new Map<number, number>();
  readonly #scale: number;

  constructor(
    /** Unique within a FontSet; the name the face is registered under in a PDF. */
    readonly id: string,
    /** File (and face) it came from, for messages. */
    readonly source: string,
    font: FontkitFont,
    /** Scripts it is made for; "all" for fonts named explicitly in the configuration. */
    readonly scripts: ReadonlySet<ScriptClass> | "all",
    /** For faces of one collection that differ by language (CJK): the language test. */
    readonly variant?: { group: string; language: RegExp },
  ) {
    this.#scale = 1000 / font.unitsPerEm;
    this.font = withSharedLayoutCache(font);
  }

  /** The fontkit font, as pdfkit is given it. */
  readonly font: FontkitFont;

  covers(cp: number): boolean {
    let covered = this.#covered.get(cp);
    if (covered === undefined) {
      covered = this.font.hasGlyphForCodePoint(cp);
      this.#covered.set(cp, covered);
    }
    return covered;
  }

  /**
   * Advance width of text in 1/1000 em, as drawn: shaped by fontkit for scripts whose
   * glyphs change with their neighbours (Arabic joining, Indic conjuncts, combining
   * marks), else the sum of the characters' advances (see withSharedLayoutCache).
   */
  advance(text: string): number {
    if (needsShaping(text)) {
      let width = this.#widths.get(text);
      if (width === undefined) {
        width = this.font.layout(text).advanceWidth * this.#scale;
        if (this.#widths.size >= MAX_WIDTH_CACHE) this.#widths.clear();
        this.#widths.set(text, width);
      }
      return width;
    }
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      let advance = this.#advances.get(cp);
      if (advance === undefined) {
        advance = this.font.glyphForCodePoint(cp).advanceWidth * this.#scale;
        this.#advances.set(cp, advance);
      }
      width += advance;
    }
    return width;
  }
}

export interface TextPiece {
  text: string;
  face: FontFace;
}

/** Picks faces for one document; its language decides between CJK variants. */
export class FontChooser {
  readonly #faces: readonly FontFace[];
  readonly #order = new Map<ScriptClass, { preferred: FontFace[]; all: FontFace[] }>();
  /** Characters no configured font has a glyph for. */
  readonly missing = new Set<string>();

  constructor(
    faces: readonly FontFace[],
    readonly primary: FontFace,
    language: string | undefined,
  ) {
    const chosenVariant = new Map<string, FontFace>();
    for (const face of faces) {
      if (!face.variant || chosenVariant.has(face.variant.group)) continue;
      if (face.variant.language.test(language ?? "")) chosenVariant.set(face.variant.group, face);
    }
    this.#faces = faces.filter((face) => !face.variant || chosenVariant.get(face.variant.group) === face);
  }

  /**
   * Faces for a script: explicitly configured ones, then those made for it (`preferred`),
   * then all the others (`all` starts with `preferred`).
   */
  order(script: ScriptClass): { preferred: FontFace[]; all: FontFace[] } {
    let order = this.#order.get(script);
    if (!order) {
      const explicit = this.#faces.filter((face) => face.scripts === "all");
      const made = this.#faces.filter((face) => face.scripts !== "all" && face.scripts.has(script));
      const preferred = [...explicit, ...made];
      order = { preferred, all: [...preferred, ...this.#faces.filter((face) => !preferred.includes(face))] };
      this.#order.set(script, order);
    }
    return order;
  }

  /**
   * Text of one script cut into pieces that each have one face with every glyph: the
   * whole text in the first preferred face that has them all, else character by
   * character in the first face that has each (so a Latin word is never drawn with a CJK
   * font's Latin letters just because that font also has a symbol next to it).
   */
  split(text: string, script: ScriptClass): TextPiece[] {
    const { preferred, all: order } = this.order(script);
    const whole = preferred.find((face) => coversAll(face, text));
    if (whole) return [{ text, face: whole }];
    const pieces: TextPiece[] = [];
    for (const char of text) {
      const cp = char.codePointAt(0)!;
      let face: FontFace | undefined;
      if (/\s/u.test(char)) face = pieces.at(-1)?.face ?? order[0]!;
      else face = order.find((candidate) => candidate.covers(cp));
      if (!face) {
        this.missing.add(char);
        face = this.primary;
      }
      const last = pieces.at(-1);
      if (last && last.face === face) last.text += char;
      else pieces.push({ text: char, face });
    }
    return pieces;
  }
}

function coversAll(face: FontFace, text: string): boolean {
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp !== 0x20 && !face.covers(cp)) return false;
  }
  return true;
}

export class FontSet {
  constructor(
    readonly faces: readonly FontFace[],
    /** The first face with Latin letters: headings, page numbers, the last resort. */
    readonly primary: FontFace,
  ) {}

  chooser(language?: string): FontChooser {
    return new FontChooser(this.faces, this.primary, language);
  }

  /** Required scripts (see REQUIRED_SCRIPTS) that no face can show. */
  missingScripts(): ScriptClass[] {
    return REQUIRED_SCRIPTS.filter(([, sample]) =>
      Array.from(sample).some((char) => !this.faces.some((face) => face.covers(char.codePointAt(0)!))),
    ).map(([script]) => script);
  }

  describe(): string[] {
    return this.faces.map((face) => `${face.id}: ${face.source}`);
  }
}

/**
 * Finds and opens the fonts. Throws FontConfigError, naming what was searched, when a
 * configured file cannot be used or when no font with Latin letters is found at all.
 */
export function loadFontSet(config: FontConfig = {}): FontSet {
  const problems: string[] = [];
  const faces: FontFace[] = [];
  const seen = new Set<string>();
  // The faces of one collection share its bytes (the CJK collection is 19 MB).
  const files = new Map<string, Buffer>();
  const add = (file: string, scripts: ReadonlySet<ScriptClass> | "all", postscriptName?: string, variant?: FontFace["variant"]) => {
    const key = `${path.resolve(file)}#${postscriptName ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    const font = openFont(file, postscriptName, files);
    faces.push(new FontFace(`F${faces.length + 1}`, postscriptName ? `${file}#${postscriptName}` : file, font, scripts, variant));
  };

  for (const spec of config.files ?? []) {
    const hash = spec.lastIndexOf("#");
    const [file, postscriptName] = hash > 0 ? [spec.slice(0, hash), spec.slice(hash + 1)] : [spec, undefined];
    try {
      add(file, "all", postscriptName);
    } catch (error) {
      problems.push(`EXPORT_FONT_FILES: ${spec}: ${(error as Error).message}`);
    }
  }

  let dirs = config.systemDirs ?? DEFAULT_FONT_DIRS;
  if (config.dir !== undefined) {
    if (!isDirectory(config.dir)) problems.push(`EXPORT_FONT_DIR: ${config.dir} is not a directory`);
    dirs = [config.dir];
  }
  if (problems.length > 0) throw new FontConfigError(problems);

  const found = findFontFiles(dirs);
  for (const known of KNOWN_FONTS) {
    const file = found.get(known.file.toLowerCase());
    if (!file) continue;
    try {
      if (known.variants) {
        for (const [language, postscriptName] of known.variants) {
          add(file, new Set(known.scripts), postscriptName, { group: known.file, language });
        }
      } else {
        add(file, new Set(known.scripts));
      }
    } catch {
      // A damaged or unexpected file under a system directory is skipped, not fatal.
    }
  }
  if (config.dir !== undefined) {
    const known = new Set(KNOWN_FONTS.map((font) => font.file.toLowerCase()));
    for (const [name, file] of found) {
      if (known.has(name)) continue;
      try {
        add(file, new Set());
      } catch {
        problems.push(`EXPORT_FONT_DIR: ${file} is not a usable font`);
      }
    }
  }

  const primary = faces.find((face) => face.covers(0x41) && face.covers(0x61));
  if (!primary) {
    throw new FontConfigError([
      `no usable font for PDF exports: ${faces.length === 0 ? "no font files found" : `none of ${faces.map((f) => f.source).join(", ")} has Latin letters`} ` +
        `(searched ${dirs.join(", ")} for ${KNOWN_FONTS.slice(0, 4).map((font) => font.file).join(", ")}, DejaVuSans.ttf and others). ` +
        `On Debian or Ubuntu: apt-get install fonts-noto-core fonts-noto-cjk; elsewhere set EXPORT_FONT_DIR to a directory with Noto fonts or EXPORT_FONT_FILES to font files.`,
      ...problems,
    ]);
  }
  if (problems.length > 0) throw new FontConfigError(problems);
  return new FontSet(faces, primary);
}

function openFont(file: string, postscriptName: string | undefined, files: Map<string, Buffer>): FontkitFont {
  if (!FONT_FILE.test(file)) throw new Error("not a .ttf, .otf or .ttc file");
  let data = files.get(file);
  try {
    data ??= readFileSync(file);
    files.set(file, data);
  } catch (error) {
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let font;
  try {
    // fontkit reads a name given for a single font as a variation name: only pass it for collections.
    font = fontkit.create(data, /\.ttc$/i.test(file) ? postscriptName : undefined);
  } catch (error) {
    throw new Error(`is not a font fontkit can read (${(error as Error).message})`);
  }
  if (!font) throw new Error(`has no face named ${postscriptName}`);
  if (isCollection(font)) {
    const first = font.fonts[0];
    if (!first) throw new Error("is an empty font collection");
    font = first;
  }
  if (postscriptName !== undefined && font.postscriptName !== postscriptName) {
    throw new Error(`has no face named ${postscriptName} (its face is ${font.postscriptName})`);
  }
  if (typeof font.layout !== "function" || typeof font.hasGlyphForCodePoint !== "function") {
    throw new Error("is not a font fontkit can lay out");
  }
  return font;
}

/** Font files by lower-cased file name; the first directory that has a name wins. */
function findFontFiles(dirs: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < 4) walk(full, depth + 1);
      else if ((entry.isFile() || entry.isSymbolicLink()) && FONT_FILE.test(entry.name)) {
        if (!found.has(entry.name.toLowerCase()) && existsSync(full)) found.set(entry.name.toLowerCase(), full);
      }
    }
  };
  for (const dir of dirs) walk(dir, 0);
  return found;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
