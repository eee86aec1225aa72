import { PDFDocument } from "./fontkit.js";
import type { FontChooser, FontFace, FontSet } from "./fonts.js";
import { metadataLines } from "./metadata.js";
import { isRightToLeftParagraph, rightToLeftClasses, scriptRuns } from "./scripts.js";
import { canBreakBetween } from "./text.js";
import { formatClock } from "./time.js";
import { paragraphsOf, type RenderOptions, type Transcript } from "./transcript.js";

/*
 * The PDF renderer lays text out itself rather than through pdfkit's text flow, because
 * pdfkit draws one font per call and knows nothing of scripts or direction. Here each
 * paragraph is cut into script runs, each run gets a font that has its glyphs (fonts.ts),
 * the runs are cut into unbreakable atoms (words; single characters in Chinese and
 * Japanese), atoms are packed into lines, and each line is put into visual order with
 * the bidi algorithm's rule L2 before it is drawn. Within one atom fontkit shapes the
 * glyphs (Arabic joining, ligatures) and puts right-to-left ones in visual order.
 */

export interface PdfOptions extends RenderOptions {
  fonts: FontSet;
  /** The document's creation date (PDF metadata); defaults to now. */
  now?: Date;
}

export interface PdfResult {
  data: Buffer;
  pages: number;
  /** Characters drawn with no glyph (no configured font has them). */
  missingGlyphs: string[];
}

interface Style {
  size: number;
  color: string;
}

const STYLES = {
  title: { size: 18, color: "#111111" },
  label: { size: 9.5, color: "#666666" },
  meta: { size: 9.5, color: "#222222" },
  stamp: { size: 10.5, color: "#777777" },
  body: { size: 10.5, color: "#111111" },
  speaker: { size: 10.5, color: "#1F4E8C" },
  footer: { size: 8.5, color: "#777777" },
} satisfies Record<string, Style>;

const PAGE_WIDTH = 595.28; // A4 in points
const PAGE_HEIGHT = 841.89;
const MARGIN = 56; // about 2 cm
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const LINE_HEIGHT = 1.5; // times the largest font size on the line
const BASELINE = 1.1; // baseline below the line's top, times that size

interface Span {
  text: string;
  style: Style;
}

interface Atom {
  text: string;
  face: FontFace;
  style: Style;
  rtl: boolean;
  width: number;
  /** Width of the space that follows it (0 when the next atom abuts it). */
  spaceAfter: number;
  /** A line may break before it. */
  breakBefore: boolean;
}

export async function renderPdf(transcript: Transcript, options: PdfOptions): Promise<PdfResult> {
  const chooser = options.fonts.chooser(transcript.language);
  const doc = new PDFDocument({
    size: [PAGE_WIDTH, PAGE_HEIGHT],
    margin: MARGIN,
    bufferPages: true,
    // Without this pdfkit loads and embeds Helvetica, which has no glyph we need.
    font: options.fonts.primary.font as unknown as string,
    lang: transcript.language || "und",
    displayTitle: true,
    info: {
      Title: transcript.title,
      ...(transcript.sourceFileName ? { Subject: `Transcript of ${transcript.sourceFileName}` } : {}),
      Creator: "Transcribe",
      CreationDate: options.now ?? new Date(),
    },
  });
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on("end", resolve);
    doc.on("error", reject);
  });

  const painter = new Painter(doc, chooser);
  painter.paragraph([{ text: transcript.title, style: STYLES.title }], 8);
  for (const { label, value } of metadataLines(transcript)) {
    painter.paragraph(
      [
        { text: `${label}: `, style: STYLES.label },
        { text: value, style: STYLES.meta },
      ],
      0,
    );
  }
  painter.rule(10);
  for (const paragraph of paragraphsOf(transcript)) {
    const spans: Span[] = [];
    if (options.includeTimestamps) spans.push({ text: `[${formatClock(paragraph.start)}] `, style: STYLES.stamp });
    if (paragraph.turn) spans.push({ text: `${paragraph.turn}: `, style: STYLES.speaker });
    spans.push({ text: paragraph.text, style: STYLES.body });
    painter.paragraph(spans, 5, isRightToLeftParagraph(paragraph.text));
  }
  const pages = painter.pageNumbers();
  doc.end();
  await ended;
  return { data: Buffer.concat(chunks), pages, missingGlyphs: [...chooser.missing] };
}

type Doc = InstanceType<typeof PDFDocument>;

class Painter {
  #y = MARGIN;
  readonly #registered = new Set<string>();
  #font: string | undefined;
  #size: number | undefined;
  #color: string | undefined;

  constructor(
    readonly doc: Doc,
    readonly chooser: FontChooser,
  ) {}

  paragraph(spans: Span[], spaceAfter: number, rightToLeft = isRightToLeftParagraph(spans.map((s) => s.text).join(""))): void {
    for (const line of breakLines(atomize(spans, this.chooser), CONTENT_WIDTH)) {
      const size = Math.max(...line.map((atom) => atom.style.size));
      const height = size * LINE_HEIGHT;
      if (this.#y + height > PAGE_HEIGHT - MARGIN) this.#newPage();
      this.#drawLine(line, this.#y + size * BASELINE, rightToLeft ? "right" : "left");
      this.#y += height;
    }
    this.#y += spaceAfter;
  }

  rule(spaceAfter: number): void {
    this.#y += 4;
    this.doc.save().moveTo(MARGIN, this.#y).lineTo(PAGE_WIDTH - MARGIN, this.#y).lineWidth(0.5).strokeColor("#bbbbbb").stroke().restore();
    this.#y += spaceAfter;
  }

  /** "n / total" centred under every page; returns the page count. */
  pageNumbers(): number {
    const { start, count } = this.doc.bufferedPageRange();
    for (let page = start; page < start + count; page++) {
      this.doc.switchToPage(page);
      this.#font = this.#size = this.#color = undefined;
      const atoms = atomize([{ text: `${page - start + 1} / ${count}`, style: STYLES.footer }], this.chooser);
      this.#drawLine(atoms, PAGE_HEIGHT - MARGIN / 2, "center");
    }
    return count;
  }

  #newPage(): void {
    this.doc.addPage();
    this.#y = MARGIN;
    // A page's content starts with no colour set: set everything again.
    this.#font = this.#size = this.#color = undefined;
  }

  #drawLine(line: Atom[], baseline: number, align: "left" | "right" | "center"): void {
    if (line.length === 0) return;
    const visual = visualOrder(line, align === "right");
    const gaps = visual.map((index, k) => (k + 1 < visual.length ? gapBetween(line, index, visual[k + 1]!) : 0));
    const width = visual.reduce((sum, index, k) => sum + line[index]!.width + gaps[k]!, 0);
    let x = align === "left" ? MARGIN : align === "right" ? PAGE_WIDTH - MARGIN - width : (PAGE_WIDTH - width) / 2;
    // Neighbouring left-to-right atoms of one font and style are drawn as one string (the
    // font's own space between them), which keeps the PDF small and its text selectable
    // as words; right-to-left atoms are drawn one by one, since pdfkit lays a string out
    // word by word from the left.
    for (let k = 0; k < visual.length; ) {
      const first = line[visual[k]!]!;
      let text = first.text;
      let advance = first.width;
      let next = k + 1;
      const space = (first.face.advance(" ") * first.style.size) / 1000;
      while (next < visual.length) {
        const atom = line[visual[next]!]!;
        const gap = gaps[next - 1]!;
        const joinable =
          !first.rtl && !atom.rtl && atom.face === first.face && atom.style === first.style &&
          visual[next]! === visual[next - 1]! + 1 && (gap === 0 || Math.abs(gap - space) < 0.01);
        if (!joinable) break;
        text += gap === 0 ? atom.text : ` ${atom.text}`;
        advance += gap + atom.width;
        next++;
      }
      this.#draw(text, first, x, baseline);
      x += advance + gaps[next - 1]!;
      k = next;
    }
  }

  #draw(text: string, atom: Atom, x: number, baseline: number): void {
    const { doc } = this;
    if (!this.#registered.has(atom.face.id)) {
      doc.registerFont(atom.face.id, atom.face.font as unknown as string);
      this.#registered.add(atom.face.id);
    }
    if (this.#font !== atom.face.id) doc.font(atom.face.id);
    if (this.#size !== atom.style.size) doc.fontSize(atom.style.size);
    if (this.#color !== atom.style.color) doc.fillColor(atom.style.color);
    this.#font = atom.face.id;
    this.#size = atom.style.size;
    this.#color = atom.style.color;
    // No ActualText for right-to-left words: poppler reverses it a second time.
    doc.text(text, x, baseline, { lineBreak: false, baseline: "alphabetic" });
  }
}

/** Spans → atoms: script runs, a font per run, then words (or CJK characters). */
function atomize(spans: readonly Span[], chooser: FontChooser): Atom[] {
  const atoms: Atom[] = [];
  let current: Atom | undefined;
  let previousChar: string | undefined;
  let afterSpace = false;
  const close = () => {
    if (!current) return;
    current.width = (current.face.advance(current.text) * current.style.size) / 1000;
    atoms.push(current);
    current = undefined;
  };
  for (const span of spans) {
    for (const run of scriptRuns(span.text)) {
      const rtl = rightToLeftClasses.has(run.script);
      for (const piece of chooser.split(run.text, run.script)) {
        close();
        for (const char of piece.text) {
          if (char === " ") {
            close();
            const last = atoms.at(-1);
            if (last && !afterSpace) last.spaceAfter = (piece.face.advance(" ") * span.style.size) / 1000;
            afterSpace = true;
            previousChar = undefined;
            continue;
          }
          const breakHere = previousChar !== undefined && canBreakBetween(previousChar, char);
          if (current && breakHere) close();
          current ??= {
            text: "",
            face: piece.face,
            style: span.style,
            rtl,
            width: 0,
            spaceAfter: 0,
            breakBefore: atoms.length === 0 || afterSpace || breakHere,
          };
          afterSpace = false;
          current.text += char;
          previousChar = char;
        }
      }
    }
  }
  close();
  return atoms;
}

/** Greedy line filling over clusters (atoms with no break between them). */
function breakLines(atoms: readonly Atom[], maxWidth: number): Atom[][] {
  const lines: Atom[][] = [];
  let line: Atom[] = [];
  let width = 0;
  const push = (atom: Atom) => {
    const gap = line.length > 0 ? line.at(-1)!.spaceAfter : 0;
    if (line.length > 0 && width + gap + atom.width > maxWidth) {
      lines.push(line);
      line = [];
      width = 0;
      width += atom.width;
    } else {
      width += gap + atom.width;
    }
    line.push(atom);
  };
  for (let i = 0; i < atoms.length; ) {
    let j = i + 1;
    while (j < atoms.length && !atoms[j]!.breakBefore) j++;
    const cluster = atoms.slice(i, j);
    const clusterWidth = cluster.reduce((sum, atom) => sum + atom.width, 0);
    const gap = line.length > 0 ? line.at(-1)!.spaceAfter : 0;
    if (line.length > 0 && width + gap + clusterWidth > maxWidth) {
      lines.push(line);
      line = [];
      width = 0;
    }
    if (clusterWidth <= maxWidth) {
      width += (line.length > 0 ? gap : 0) + clusterWidth;
      line.push(...cluster);
    } else {
      // Wider than a line (a long URL, a run of text with no break): cut anywhere.
      for (const atom of cluster) for (const part of cutToWidth(atom, maxWidth)) push(part);
    }
    i = j;
  }
  if (line.length > 0) lines.push(line);
  for (const finished of lines) {
    const last = finished.at(-1)!;
    if (last.spaceAfter) finished[finished.length - 1] = { ...last, spaceAfter: 0 };
  }
  return lines;
}

let graphemes: Intl.Segmenter | undefined;

function cutToWidth(atom: Atom, maxWidth: number): Atom[] {
  if (atom.width <= maxWidth) return [atom];
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const parts: Atom[] = [];
  let text = "";
  const measure = (value: string) => (atom.face.advance(value) * atom.style.size) / 1000;
  for (const { segment } of graphemes.segment(atom.text)) {
    if (text && measure(text + segment) > maxWidth) {
      parts.push({ ...atom, text, width: measure(text), spaceAfter: 0, breakBefore: parts.length === 0 ? atom.breakBefore : true });
      text = "";
    }
    text += segment;
  }
  parts.push({ ...atom, text, width: measure(text), breakBefore: parts.length === 0 ? atom.breakBefore : true });
  return parts;
}

/**
 * Indices of the line's atoms in display order (Unicode bidi rule L2 at atom level):
 * right-to-left atoms have level 1; left-to-right ones 0, or 2 in a right-to-left
 * paragraph; from the highest level down to 1, every maximal sequence at that level or
 * above is reversed.
 */
export function visualOrder(line: readonly Pick<Atom, "rtl">[], rightToLeft: boolean): number[] {
  const levels = line.map((atom) => (atom.rtl ? 1 : rightToLeft ? 2 : 0));
  const order = line.map((_, index) => index);
  const highest = Math.max(0, ...levels);
  for (let level = highest; level >= 1; level--) {
    for (let k = 0; k < order.length; ) {
      if (levels[order[k]!]! < level) {
        k++;
        continue;
      }
      const start = k;
      while (k < order.length && levels[order[k]!]! >= level) k++;
      const reversed = order.slice(start, k).reverse();
      order.splice(start, reversed.length, ...reversed);
    }
  }
  return order;
}

/** The space between two atoms shown side by side: the one that separated them in the text. */
function gapBetween(line: readonly Atom[], left: number, right: number): number {
  if (right === left + 1) return line[left]!.spaceAfter;
  if (left === right + 1) return line[right]!.spaceAfter;
  return Math.max(line[left]!.spaceAfter, line[right]!.spaceAfter);
}
