import { deflateRawSync } from "node:zlib";
import { normalizeWord } from "./chunks.js";
import type { DroppedSegment, Segment } from "./transcriber.js";

/**
 * Whisper's failure modes on silence, music and noise: the same phrase looping inside a
 * segment, the same segment emitted again and again, and stock phrases from its training
 * subtitles ("Thanks for watching!") where nobody spoke. The engine already runs with
 * Whisper's own fallbacks (compression ratio 2.4, log-probability −1, no previous-text
 * conditioning, silence skipping); this guard applies tighter rules to what comes out.
 */
export interface GuardOptions {
  /** A segment whose text compresses better than this is a loop (Whisper's threshold is 2.4). */
  maxCompressionRatio: number;
  /** Identical consecutive segments kept at most this many times. */
  maxIdenticalRun: number;
  /** A single word repeated more than this many times in a row is cut back. */
  maxWordRepeats: number;
  /** A phrase of 2+ words repeated more than this many times in a row is cut back. */
  maxPhraseRepeats: number;
}

export const defaultGuardOptions: GuardOptions = {
  maxCompressionRatio: 2.4,
  maxIdenticalRun: 2,
  maxWordRepeats: 4,
  maxPhraseRepeats: 2,
};

const stockPhrases = [
  "thanks for watching",
  "thank you for watching",
  "please subscribe",
  "subscribe to my channel",
  "subtitles by the amara org community",
  "subtitles by",
  "transcribed by",
  "untertitel im auftrag des zdf",
  "sous titrage st 501",
  "amaraorg",
];

export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0) return 0;
  return bytes.length / deflateRawSync(bytes).length;
}

function normalizedText(text: string): string {
  return text
    .split(/\s+/)
    .map(normalizeWord)
    .filter((w) => w !== "")
    .join(" ");
}

/**
 * Cuts a run of a repeated n-gram (n = 1 … 8 words) back to its allowed count, within
 * one segment's words. Returns the kept words' indexes.
 */
export function collapseRepeats(words: readonly string[], options: GuardOptions = defaultGuardOptions): number[] {
  const norm = words.map(normalizeWord);
  const keep = new Array<boolean>(words.length).fill(true);
  for (let n = 1; n <= 8; n++) {
    const allowed = n === 1 ? options.maxWordRepeats : options.maxPhraseRepeats;
    let i = 0;
    while (i + n <= norm.length) {
      const gram = norm.slice(i, i + n).join(" ");
      if (gram.replace(/ /g, "") === "") {
        i++;
        continue;
      }
      let count = 1;
      while (i + (count + 1) * n <= norm.length && norm.slice(i + count * n, i + (count + 1) * n).join(" ") === gram) count++;
      if (count > allowed) {
        for (let k = i + allowed * n; k < i + count * n; k++) keep[k] = false;
        i += count * n;
      } else {
        i++;
      }
    }
  }
  return keep.flatMap((k, index) => (k ? [index] : []));
}

/** Applies every rule; returns the kept segments and what was dropped or shortened, with why. */
export function guardSegments(
  segments: readonly Segment[],
  options: GuardOptions = defaultGuardOptions,
): { segments: Segment[]; dropped: DroppedSegment[] } {
  const kept: Segment[] = [];
  const dropped: DroppedSegment[] = [];
  const drop = (s: Segment, reason: string) => dropped.push({ start: s.start, end: s.end, text: s.text, reason });
  let identicalRun = 0;
  for (const original of segments) {
    let segment = original;
    const text = normalizedText(segment.text);
    if (text === "") {
      drop(segment, "empty");
      continue;
    }
    const silent = (segment.noSpeechProb ?? 0) > 0.6 && (segment.avgLogprob ?? 0) < -1;
    if (silent) {
      drop(segment, "no speech");
      continue;
    }
    const stock = stockPhrases.some((p) => text === p || (text.startsWith(p) && text.length < p.length + 12));
    if (stock && ((segment.noSpeechProb ?? 0) > 0.3 || (segment.avgLogprob ?? 0) < -0.7 || segments.length === 1)) {
      drop(segment, "stock phrase without speech");
      continue;
    }
    // Loops inside the segment: cut the repeats back rather than lose the segment.
    if (segment.words.length > 0) {
      const keepIndexes = collapseRepeats(segment.words.map((w) => w.word), options);
      if (keepIndexes.length < segment.words.length) {
        const words = keepIndexes.map((i) => segment.words[i]!);
        drop(segment, `repeated words cut (${segment.words.length - words.length})`);
        segment = { ...segment, words, text: words.map((w) => w.word).join(""), end: words[words.length - 1]!.end };
      }
    } else {
      const tokens = segment.text.trim().split(/\s+/);
      const keepIndexes = collapseRepeats(tokens, options);
      if (keepIndexes.length < tokens.length) {
        drop(segment, `repeated words cut (${tokens.length - keepIndexes.length})`);
        segment = { ...segment, text: keepIndexes.map((i) => tokens[i]).join(" ") };
      }
    }
    const ratio = compressionRatio(segment.text.trim());
    if (segment.text.length > 40 && ratio > options.maxCompressionRatio) {
      drop(segment, `compression ratio ${ratio.toFixed(2)}`);
      continue;
    }
    const previous = kept[kept.length - 1];
    if (previous && normalizedText(previous.text) === normalizedText(segment.text)) {
      identicalRun++;
      if (identicalRun >= options.maxIdenticalRun) {
        drop(segment, "identical to the previous segments");
        continue;
      }
    } else {
      identicalRun = 0;
    }
    kept.push(segment);
  }
  return { segments: kept, dropped };
}
