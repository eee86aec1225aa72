import type { ChunkResult, Segment, Word } from "./transcriber.js";

export interface ChunkWindow {
  index: number;
  start: number;
  end: number;
}

/**
 * Splits [0, duration) into windows of `chunkSeconds` that overlap by `overlapSeconds`,
 * so a word cut at one window's edge is heard whole by the next. A last window shorter
 * than twice the overlap is folded into the one before (it would carry little but seam).
 */
export function planChunks(duration: number, chunkSeconds: number, overlapSeconds: number): ChunkWindow[] {
  if (!(duration > 0)) return [{ index: 0, start: 0, end: Math.max(0, duration) }];
  if (!(chunkSeconds > overlapSeconds * 2)) throw new Error("chunkSeconds must exceed twice the overlap");
  const windows: ChunkWindow[] = [];
  let start = 0;
  while (true) {
    let end = Math.min(duration, start + chunkSeconds);
    if (duration - end < overlapSeconds * 2) end = duration;
    windows.push({ index: windows.length, start: round(start), end: round(end) });
    if (end >= duration) break;
    start = end - overlapSeconds;
  }
  return windows;
}

interface FlatWord extends Word {
  /** Index of the segment the word came from, within its own chunk. */
  segment: number;
  norm: string;
}

export function normalizeWord(word: string): string {
  return word
    .toLowerCase()
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}']+/gu, "")
    .replace(/^'+|'+$/g, "");
}

function flatten(segments: readonly Segment[]): FlatWord[] {
  return segments.flatMap((segment, index) =>
    segment.words.map((w) => ({ ...w, segment: index, norm: normalizeWord(w.word) })),
  );
}

/**
 * Where to cut between the transcript so far (`left`) and the next chunk (`right`),
 * which overlap in time on [right.start, left.end]. Both chunks heard the overlap, so
 * the words there appear twice. The cut keeps each spoken word exactly once:
 *
 * 1. Align the words of the overlap textually: the longest run of equal (normalized)
 *    words that also start within `tolerance` seconds of each other. The cut goes in
 *    the middle of that run: left keeps the run's first half, right the second half.
 *    This is robust to timestamp jitter and stays away from both windows' cut edges,
 *    where a chunk may have heard half a word.
 * 2. Without a run of at least `minRun` words (silence, or the chunks disagree), cut at
 *    the middle of the overlap in time: a word belongs to the side its midpoint is on.
 *
 * Returns how many of left's words to keep and the index of right's first kept word.
 */
export function findSeam(
  left: readonly FlatWord[],
  right: readonly FlatWord[],
  overlapStart: number,
  overlapEnd: number,
  options: { tolerance?: number; minRun?: number } = {},
): { keepLeft: number; rightFrom: number; aligned: boolean } {
  const tolerance = options.tolerance ?? 1.0;
  const minRun = options.minRun ?? 2;
  const margin = 1.0;
  const leftFrom = firstIndex(left, (w) => w.end > overlapStart - margin);
  const rightTo = firstIndex(right, (w) => w.start >= overlapEnd + margin);
  let best = { length: 0, i: -1, j: -1, distance: Infinity };
  const center = (overlapStart + overlapEnd) / 2;
  for (let i = leftFrom; i < left.length; i++) {
    for (let j = 0; j < rightTo; j++) {
      let k = 0;
      while (
        i + k < left.length &&
        j + k < right.length &&
        left[i + k]!.norm !== "" &&
        left[i + k]!.norm === right[j + k]!.norm &&
        Math.abs(left[i + k]!.start - right[j + k]!.start) <= tolerance
      ) {
        k++;
      }
      if (k === 0) continue;
      const mid = left[i + Math.floor(k / 2)]!.start;
      const distance = Math.abs(mid - center);
      if (k > best.length || (k === best.length && distance < best.distance)) best = { length: k, i, j, distance };
    }
  }
  if (best.length >= minRun) {
    // Before the run, the right chunk heard clearly more than the left one: the left
    // one skipped words near its end (Whisper does, close to a window's edge). Take the
    // right chunk from its first word instead, and the left one up to there.
    const preLeft = left.slice(leftFrom, best.i).filter((w) => w.start >= overlapStart - 0.2).length;
    const preRight = best.j;
    if (preRight >= preLeft + 2) {
      const from = right[0]!.start;
      return { keepLeft: firstIndex(left, (w) => (w.start + w.end) / 2 >= from), rightFrom: 0, aligned: true };
    }
    const half = Math.floor(best.length / 2);
    return { keepLeft: best.i + half, rightFrom: best.j + half, aligned: true };
  }
  // No agreement to align on: cut at the time that keeps the most words, so a stretch
  // one chunk skipped comes from the other; with equal counts, nearest the middle.
  const mid = (w: FlatWord) => (w.start + w.end) / 2;
  const inOverlap = (w: FlatWord) => w.end > overlapStart && w.start < overlapEnd;
  const candidates = [center, ...left.filter(inOverlap).map(mid), ...right.filter(inOverlap).map(mid)];
  let cut = center;
  let bestKept = -1;
  for (const t of candidates) {
    const kept = left.filter((w) => inOverlap(w) && mid(w) < t).length + right.filter((w) => inOverlap(w) && mid(w) >= t).length;
    if (kept > bestKept || (kept === bestKept && Math.abs(t - center) < Math.abs(cut - center))) {
      bestKept = kept;
      cut = t;
    }
  }
  const keepLeft = firstIndex(left, (w) => (w.start + w.end) / 2 >= cut);
  const rightFrom = firstIndex(right, (w) => (w.start + w.end) / 2 >= cut);
  return { keepLeft, rightFrom, aligned: false };
}

function firstIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  const index = items.findIndex(predicate);
  return index === -1 ? items.length : index;
}

/** Rebuilds segments from the kept words of one chunk, in the chunk's segment grouping. */
function regroup(source: readonly Segment[], words: readonly FlatWord[]): Segment[] {
  const out: Segment[] = [];
  let current: { index: number; words: FlatWord[] } | undefined;
  const flush = () => {
    if (!current || current.words.length === 0) return;
    const original = source[current.index]!;
    const whole = current.words.length === original.words.length;
    const words = current.words.map(({ segment: _s, norm: _n, ...w }) => w);
    out.push({
      ...original,
      start: whole ? original.start : words[0]!.start,
      end: whole ? original.end : words[words.length - 1]!.end,
      text: whole ? original.text : words.map((w) => w.word).join(""),
      words,
    });
  };
  for (const word of words) {
    if (!current || current.index !== word.segment) {
      flush();
      current = { index: word.segment, words: [] };
    }
    current.words.push(word);
  }
  flush();
  return out;
}

/**
 * Joins chunk results (in time order, overlapping as planned) into one list of
 * segments: every seam cut with findSeam, segments trimmed to their kept words. Chunks
 * whose segments carry no words (a provider without word timestamps) are cut by
 * segment midpoints instead.
 */
export function mergeChunks(chunks: readonly ChunkResult[]): Segment[] {
  const ordered = [...chunks].sort((a, b) => a.start - b.start);
  let merged: Segment[] = [];
  let previousEnd = 0;
  for (const [n, chunk] of ordered.entries()) {
    if (n === 0) {
      merged = chunk.segments.map((s) => ({ ...s, words: [...s.words] }));
      previousEnd = chunk.end;
      continue;
    }
    const overlapStart = chunk.start;
    const overlapEnd = previousEnd;
    const hasWords = merged.some((s) => s.words.length > 0) || chunk.segments.some((s) => s.words.length > 0);
    if (!hasWords) {
      const cut = (overlapStart + overlapEnd) / 2;
      merged = merged.filter((s) => (s.start + s.end) / 2 < cut);
      merged.push(...chunk.segments.filter((s) => (s.start + s.end) / 2 >= cut));
    } else {
      const leftWords = flatten(merged);
      const rightWords = flatten(chunk.segments);
      const { keepLeft, rightFrom } = findSeam(leftWords, rightWords, overlapStart, overlapEnd);
      merged = regroup(merged, leftWords.slice(0, keepLeft));
      merged.push(...regroup(chunk.segments, rightWords.slice(rightFrom)));
    }
    previousEnd = chunk.end;
  }
  return merged;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * Seams where the later chunk skipped the overlap: Whisper sometimes starts a window's
 * transcript seconds in (it came in mid-sentence), and when the earlier chunk's last
 * words are the garbled ones at its cut edge, those seconds would be lost. For each
 * such seam this returns a bridge window centred on the hole; transcribing it and
 * merging it between the two chunks (mergeChunks sorts by start) fills the hole with
 * words heard mid-window.
 */
export function bridgesNeeded(chunks: readonly ChunkResult[], options: { margin?: number } = {}): ChunkWindow[] {
  const margin = options.margin ?? 10;
  const ordered = [...chunks].sort((a, b) => a.start - b.start);
  const bridges: ChunkWindow[] = [];
  for (let i = 1; i < ordered.length; i++) {
    const left = ordered[i - 1]!;
    const right = ordered[i]!;
    const overlapStart = right.start;
    const overlapEnd = left.end;
    if (overlapEnd <= overlapStart) continue;
    const leftWords = left.segments.flatMap((s) => s.words);
    const rightWords = right.segments.flatMap((s) => s.words);
    const firstRight = rightWords[0]?.start ?? right.end;
    const spokenInOverlap = leftWords.some((w) => w.end > overlapStart && w.start < overlapEnd);
    // The right chunk heard nothing of most of the overlap although speech was there.
    if (spokenInOverlap && firstRight > overlapStart + (overlapEnd - overlapStart) * 0.6) {
      const start = Math.max(left.start + (overlapEnd - left.start) / 2, overlapStart - margin);
      const end = Math.min(right.end, Math.max(firstRight, overlapEnd) + margin);
      if (end - start > overlapEnd - overlapStart) bridges.push({ index: -i, start: round(start), end: round(end) });
    }
  }
  return bridges;
}
