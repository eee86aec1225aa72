import { displayWidth, breakPieces, splitOverlong, wrapText } from "./text.js";
import { toMilliseconds } from "./time.js";
import { normalizeSpace, speakerLabel, type TranscriptSegment, type TranscriptWord } from "./transcript.js";

/** One subtitle: times in whole milliseconds, text already broken into lines. */
export interface Cue {
  start: number;
  end: number;
  lines: string[];
  /** The speaker's name as exports show it (speakerLabel), when speakers were identified. */
  speaker?: string;
  /** True on the first cue of a speaker's turn. */
  turnStart?: boolean;
}

export interface CueOptions {
  /** Columns per line (East Asian wide characters count 2). */
  maxLineWidth?: number;
  maxLines?: number;
}

export const DEFAULT_CUE_OPTIONS: Required<CueOptions> = { maxLineWidth: 42, maxLines: 2 };

interface Draft {
  start: number;
  end: number;
  text: string;
  order: number;
  speaker?: string;
}

/**
 * Subtitle cues from segments: a segment that fits in maxLines lines of maxLineWidth is
 * one cue; a longer one is split at word boundaries, timed by its words when it has them,
 * else in proportion to the characters. The result is in time order, never overlapping
 * (a cue ends at or before the next starts) and every cue lasts at least 1 ms.
 */
export function buildCues(segments: readonly TranscriptSegment[], options: CueOptions = {}): Cue[] {
  const { maxLineWidth, maxLines } = { ...DEFAULT_CUE_OPTIONS, ...options };
  const fits = (text: string) => wrapText(text, maxLineWidth).length <= maxLines;
  const drafts: Draft[] = [];
  for (const segment of segments) {
    const speaker = speakerLabel(segment.speaker);
    for (const draft of splitSegment(segment, fits, maxLineWidth)) {
      drafts.push({ ...draft, order: drafts.length, ...(speaker ? { speaker } : {}) });
    }
  }
  drafts.sort((a, b) => a.start - b.start || a.order - b.order);
  for (let i = 0; i < drafts.length; i++) {
    const cue = drafts[i]!;
    const previous = drafts[i - 1];
    if (previous) cue.start = Math.max(cue.start, previous.end);
    if (cue.end <= cue.start) cue.end = cue.start + 1;
    // Overlapping source segments: the earlier cue gives way, so the later one still
    // appears when its speech starts.
    const next = drafts[i + 1];
    if (next && next.start < cue.end) cue.end = Math.max(cue.start + 1, next.start);
  }
  return drafts.map((draft, i) => ({
    start: draft.start,
    end: draft.end,
    lines: wrapText(draft.text, maxLineWidth),
    ...(draft.speaker ? { speaker: draft.speaker, turnStart: draft.speaker !== drafts[i - 1]?.speaker } : {}),
  }));
}

type Fits = (text: string) => boolean;

function splitSegment(segment: TranscriptSegment, fits: Fits, maxLineWidth: number): Array<Omit<Draft, "order">> {
  const words = segment.words.filter(
    (w) => normalizeSpace(w.word).length > 0 && Number.isFinite(w.start) && Number.isFinite(w.end),
  );
  let text = normalizeSpace(segment.text);
  if (!text && words.length > 0) text = joinWords(words).text;
  if (!text) return [];
  const start = toMilliseconds(segment.start);
  const end = Math.max(start, toMilliseconds(segment.end));
  if (fits(text)) return [{ start, end, text }];
  if (words.length < 2) return splitProportionally(text, start, end, fits, maxLineWidth);

  const aligned = alignWords(text, words) ?? joinWords(words);
  const clamp = (ms: number) => (end > start ? Math.min(end, Math.max(start, ms)) : ms);
  const units = aligned.positions.map((position, index) => ({
    position,
    start: clamp(toMilliseconds(words[index]!.start)),
    end: clamp(toMilliseconds(words[index]!.end)),
  }));
  const result: Array<Omit<Draft, "order">> = [];
  const chunks = chunk(aligned.text, units.map((u) => u.position), fits);
  chunks.forEach(([from, to], index) => {
    const chunkText = sliceUnits(aligned.text, units.map((u) => u.position), from, to);
    const chunkStart = index === 0 ? Math.min(start, units[from]!.start) : units[from]!.start;
    const chunkEnd = Math.max(chunkStart, index === chunks.length - 1 ? Math.max(end, units[to - 1]!.end) : units[to - 1]!.end);
    // Only a single word too long for the cue gets here (chunk() keeps adding words
    // while they fit): cut it in proportion within its own time.
    if (fits(chunkText)) result.push({ start: chunkStart, end: chunkEnd, text: chunkText });
    else result.push(...splitProportionally(chunkText, chunkStart, chunkEnd, fits, maxLineWidth));
  });
  return result;
}

/** No word times: cut at word boundaries and share the segment's time by display width. */
function splitProportionally(text: string, start: number, end: number, fits: Fits, maxLineWidth: number) {
  const positions = splitOverlong(text, breakPieces(text), maxLineWidth).map((piece) => piece.start);
  const total = Math.max(1, displayWidth(text));
  const at = (offset: number) => start + Math.round(((end - start) * displayWidth(text.slice(0, offset))) / total);
  return chunk(text, positions, fits).map(([from, to]) => ({
    start: at(from === 0 ? 0 : positions[from]!),
    end: at(to === positions.length ? text.length : positions[to]!),
    text: sliceUnits(text, positions, from, to),
  }));
}

/** Text of units [from, to): from the first unit's start to the next chunk's start. */
function sliceUnits(text: string, positions: readonly number[], from: number, to: number): string {
  return text.slice(from === 0 ? 0 : positions[from]!, to === positions.length ? text.length : positions[to]!).trim();
}

/**
 * Groups units into chunks that each fit a cue. Greedy first; when that needs several
 * chunks, a second pass aims at chunks of equal width so a long segment does not end in a
 * one-word cue, keeping the greedy result if the balanced one is no better.
 */
function chunk(text: string, positions: readonly number[], fits: Fits): Array<[number, number]> {
  const n = positions.length;
  const fitsRange = (from: number, to: number) => fits(sliceUnits(text, positions, from, to));
  const greedy = (limit: (from: number, to: number) => boolean): Array<[number, number]> => {
    const chunks: Array<[number, number]> = [];
    for (let from = 0; from < n; ) {
      let to = from + 1;
      while (to < n && limit(from, to + 1)) to++;
      chunks.push([from, to]);
      from = to;
    }
    return chunks;
  };
  const plain = greedy(fitsRange);
  if (plain.length < 2) return plain;
  const target = displayWidth(text) / plain.length;
  const balanced = greedy(
    (from, to) => fitsRange(from, to) && displayWidth(sliceUnits(text, positions, from, to - 1)) < target,
  );
  return balanced.length <= plain.length ? balanced : plain;
}

/** Where each word starts in the segment text, or undefined when they do not match it. */
function alignWords(text: string, words: readonly TranscriptWord[]): { text: string; positions: number[] } | undefined {
  const positions: number[] = [];
  let cursor = 0;
  for (const word of words) {
    const token = normalizeSpace(word.word);
    const index = text.indexOf(token, cursor);
    if (index === -1) return undefined;
    positions.push(index);
    cursor = index + token.length;
  }
  return { text, positions };
}

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/**
 * The words as text, for segments whose text does not contain them. Providers that mark
 * word boundaries with a leading space (Whisper) are joined as they come; otherwise words
 * are joined with spaces except between Chinese or Japanese characters.
 */
function joinWords(words: readonly TranscriptWord[]): { text: string; positions: number[] } {
  const leadingSpaces = words.slice(1).some((word) => /^\s/u.test(word.word));
  let text = "";
  const positions: number[] = [];
  for (const word of words) {
    const token = normalizeSpace(word.word);
    if (text) {
      const separate = leadingSpaces
        ? /^\s/u.test(word.word)
        : !(CJK_CHAR.test(text.at(-1) ?? "") && CJK_CHAR.test(token[0] ?? ""));
      if (separate) text += " ";
    }
    positions.push(text.length);
    text += token;
  }
  return { text, positions };
}
