/*
 * Line breaking for subtitles, measured in terminal-style columns: East Asian wide
 * characters count 2 and combining marks 0, so a 42-column line holds 42 Latin letters or
 * 21 Chinese characters, about what either reads in the same time.
 */

/** Wide (2-column) code points: CJK ideographs, kana, Hangul syllables, fullwidth forms, emoji. */
export function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

const ZERO_WIDTH = /[\p{M}\u200b-\u200f\u2060-\u2064\ufeff]/u;

function codePointWidth(cp: number, char: string): number {
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Display width in columns. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += codePointWidth(char.codePointAt(0)!, char);
  return width;
}

/**
 * Scripts written without spaces, where a line may break between any two characters
 * (Korean uses spaces, so Hangul is not here).
 */
function breaksAnywhere(cp: number): boolean {
  return (
    (cp >= 0x2e80 && cp <= 0x2fff) ||
    (cp >= 0x3000 && cp <= 0x30ff) ||
    (cp >= 0x31f0 && cp <= 0x31ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xff00 && cp <= 0xffef) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

// Simplified kinsoku: never start a line with closing punctuation or small kana, never
// end one with opening punctuation.
const NO_BREAK_BEFORE = new Set(
  Array.from(",.!?;:)]}»”’、。，．！？：；）」』】〕〉》｝］〙〗ー々ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…‥・〜～"),
);
const NO_BREAK_AFTER = new Set(Array.from("([{«“‘（「『【〔〈《｛［〘〖"));

/**
 * Whether a line may break between two adjacent non-space characters: only next to a
 * Chinese or Japanese character, never before a combining mark or closing punctuation,
 * never after opening punctuation. (A Latin word inside Japanese text stays whole.)
 */
export function canBreakBetween(previous: string, char: string): boolean {
  return (
    (breaksAnywhere(previous.codePointAt(0)!) || breaksAnywhere(char.codePointAt(0)!)) &&
    !NO_BREAK_BEFORE.has(char) &&
    !NO_BREAK_AFTER.has(previous) &&
    !ZERO_WIDTH.test(char)
  );
}

/** An unbreakable piece of a line: a word, or one character of Chinese or Japanese. */
export interface Piece {
  /** UTF-16 offsets into the text the piece came from. */
  start: number;
  end: number;
  width: number;
  /** Separated from the previous piece by a space (else the two simply abut). */
  spaceBefore: boolean;
}

/**
 * Splits text (whitespace already folded to single spaces) into the pieces a line may
 * break between.
 */
export function breakPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let current: Piece | undefined;
  let spaceBefore = false;
  let previous: { cp: number; char: string } | undefined;
  let offset = 0;
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const at = offset;
    offset += char.length;
    if (char === " ") {
      if (current) pieces.push(current);
      current = undefined;
      spaceBefore = true;
      previous = undefined;
      continue;
    }
    const canBreak = current !== undefined && previous !== undefined && canBreakBetween(previous.char, char);
    if (current && canBreak) {
      pieces.push(current);
      current = undefined;
    }
    if (!current) {
      current = { start: at, end: at, width: 0, spaceBefore: pieces.length > 0 && spaceBefore };
      spaceBefore = false;
    }
    current.end = offset;
    current.width += codePointWidth(cp, char);
    previous = { cp, char };
  }
  if (current) pieces.push(current);
  return pieces;
}

let graphemes: Intl.Segmenter | undefined;

/** Pieces wider than maxWidth (a very long word or URL) cut between graphemes. */
export function splitOverlong(text: string, pieces: Piece[], maxWidth: number): Piece[] {
  if (pieces.every((piece) => piece.width <= maxWidth)) return pieces;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const result: Piece[] = [];
  for (const piece of pieces) {
    if (piece.width <= maxWidth) {
      result.push(piece);
      continue;
    }
    let current: Piece | undefined;
    for (const { segment, index } of graphemes.segment(text.slice(piece.start, piece.end))) {
      const width = displayWidth(segment);
      const start = piece.start + index;
      if (current && current.width + width > maxWidth) {
        result.push(current);
        current = undefined;
      }
      current ??= { start, end: start, width: 0, spaceBefore: start === piece.start && piece.spaceBefore };
      current.end = start + segment.length;
      current.width += width;
    }
    if (current) result.push(current);
  }
  return result;
}

/** Width of pieces[from..to) laid out on one line. */
export function spanWidth(pieces: readonly Piece[], from: number, to: number): number {
  let width = 0;
  for (let i = from; i < to; i++) width += pieces[i]!.width + (i > from && pieces[i]!.spaceBefore ? 1 : 0);
  return width;
}

const NON_SPACE_BREAK_PENALTY = 6;

/**
 * Breaks text into lines of at most maxWidth columns. Two-line results are balanced (the
 * break that makes the longer line shortest), as subtitle guidelines ask; a piece wider
 * than a line is cut between graphemes.
 */
export function wrapText(text: string, maxWidth: number): string[] {
  const pieces = splitOverlong(text, breakPieces(text), maxWidth);
  if (pieces.length === 0) return [];
  const breaks: number[] = [0];
  let width = pieces[0]!.width;
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const extended = width + (piece.spaceBefore ? 1 : 0) + piece.width;
    if (extended > maxWidth) {
      breaks.push(i);
      width = piece.width;
    } else {
      width = extended;
    }
  }
  if (breaks.length === 2) {
    // Balance the two lines, preferring a break at a space to one inside a run of
    // Chinese or Japanese (as if that line were a few columns longer).
    const score = (k: number) => {
      const first = spanWidth(pieces, 0, k);
      const second = spanWidth(pieces, k, pieces.length);
      if (first > maxWidth || second > maxWidth) return Infinity;
      return Math.max(first, second) + (pieces[k]!.spaceBefore ? 0 : NON_SPACE_BREAK_PENALTY);
    };
    let best = breaks[1]!;
    let bestScore = score(best);
    for (let k = 1; k < pieces.length; k++) {
      const candidate = score(k);
      if (candidate < bestScore) {
        best = k;
        bestScore = candidate;
      }
    }
    breaks[1] = best;
  }
  return breaks.map((from, index) => {
    const to = index + 1 < breaks.length ? breaks[index + 1]! : pieces.length;
    return text.slice(pieces[from]!.start, pieces[to - 1]!.end);
  });
}
