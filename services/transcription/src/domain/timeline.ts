import type { Segment, TranscriptResult, Word } from "./transcriber.js";

/**
 * The timeline rule every finished transcript obeys, whatever engine, mode or speaker split
 * produced it (docs/architecture.md "Transcript timeline", decision 0010):
 *
 * - every time lies in [0, duration], to the millisecond, and every span has end ≥ start;
 * - segments are in time order and do not overlap (a segment starts at or after the
 *   previous one's end);
 * - the words, read in order through the segments, are in time order and do not overlap;
 * - every word lies inside its own segment.
 *
 * settleTimeline makes it hold by moving times, never by dropping or moving words:
 *
 * 1. Times are clamped into [0, duration] (a missing one: a start becomes 0, an end its start).
 * 2. Segments are ordered by start; their words keep the engine's reading order.
 * 3. Words: a word that starts before the previous word starts at the same moment; a word
 *    that ends after the next word starts ends there (zero-length words are kept).
 * 4. Segments: a segment is extended to cover its words (the words' times come from the
 *    alignment, closer to the sound than the segment's); where segments overlap, the earlier
 *    one ends where the later one starts, and a later one that starts inside the earlier
 *    one's words starts after them.
 * 5. A segment with neither words nor text is removed; one with words but no text gets its
 *    words' text.
 *
 * On a transcript that already obeys the rule it changes nothing.
 */
export function settleTimeline(segments: readonly Segment[], duration: number): Segment[] {
  const limit = lastMillisecond(duration);
  const at = (value: number, fallback: number) => (Number.isNaN(value) ? fallback : Math.min(limit, Math.max(0, Math.round(value * 1000) / 1000)));

  // 1, 2, 5: clamped, ordered, empty ones gone.
  const ordered = segments
    .filter((s) => s.words.length > 0 || s.text.trim() !== "")
    .map((s) => {
      const start = at(s.start, 0);
      return {
        segment: s,
        start,
        end: Math.max(start, at(s.end, start)),
        words: s.words.map((w) => {
          const wordStart = at(w.start, 0);
          return { ...w, start: wordStart, end: Math.max(wordStart, at(w.end, wordStart)) };
        }),
      };
    })
    .map((s, index) => ({ ...s, index }))
    .sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);

  // 3: one word timeline through every segment, in reading order.
  const words: Word[] = ordered.flatMap((s) => s.words);
  for (let i = 1; i < words.length; i++) words[i]!.start = Math.max(words[i]!.start, words[i - 1]!.start);
  for (let i = 0; i < words.length; i++) {
    const next = words[i + 1]?.start ?? limit;
    words[i]!.end = Math.min(Math.max(words[i]!.end, words[i]!.start), next);
  }

  // 4: segment bounds between their neighbours' words.
  const firstWordFrom: number[] = new Array<number>(ordered.length + 1).fill(limit);
  for (let k = ordered.length - 1; k >= 0; k--) firstWordFrom[k] = ordered[k]!.words[0]?.start ?? firstWordFrom[k + 1]!;
  const starts: number[] = [];
  let wordsEnd = 0;
  for (const [k, s] of ordered.entries()) {
    starts[k] = Math.min(Math.max(s.start, wordsEnd, starts[k - 1] ?? 0), firstWordFrom[k]!);
    wordsEnd = s.words.at(-1)?.end ?? wordsEnd;
  }
  return ordered.map((s, k) => {
    const start = starts[k]!;
    const end = Math.max(Math.min(s.end, starts[k + 1] ?? limit), s.words.at(-1)?.end ?? start, start);
    const text = s.segment.text.trim() || s.words.map((w) => w.word).join("").trim();
    return { ...s.segment, start, end, text, words: s.words };
  });
}

/** The last whole millisecond not after the end of the audio (0 for no audio). */
function lastMillisecond(duration: number): number {
  if (!(Number.isFinite(duration) && duration > 0)) return 0;
  let ms = Math.round(duration * 1000);
  while (ms > 0 && ms / 1000 > duration) ms--;
  return ms / 1000;
}

/** What breaks the rule of settleTimeline, one readable line per breach (empty when it holds). */
export function timelineViolations(segments: readonly Segment[], duration: number): string[] {
  const out: string[] = [];
  const inAudio = (t: number) => Number.isFinite(t) && t >= 0 && t <= duration;
  let previousEnd = 0;
  let previousWordEnd = 0;
  for (const [k, s] of segments.entries()) {
    if (!inAudio(s.start) || !inAudio(s.end) || s.end < s.start) out.push(`segment ${k} [${s.start}, ${s.end}] is not a span inside [0, ${duration}]`);
    if (s.start < previousEnd) out.push(`segment ${k} starts at ${s.start}, before the previous one ends (${previousEnd})`);
    for (const [i, w] of s.words.entries()) {
      if (!inAudio(w.start) || !inAudio(w.end) || w.end < w.start) out.push(`word ${k}.${i} [${w.start}, ${w.end}] is not a span inside [0, ${duration}]`);
      if (w.start < s.start || w.end > s.end) out.push(`word ${k}.${i} [${w.start}, ${w.end}] is outside its segment [${s.start}, ${s.end}]`);
      if (w.start < previousWordEnd) out.push(`word ${k}.${i} starts at ${w.start}, before the previous word ends (${previousWordEnd})`);
      previousWordEnd = Math.max(previousWordEnd, w.end);
    }
    previousEnd = Math.max(previousEnd, s.end);
  }
  return out;
}

/** A transcript with its timeline settled: the worker's last step before it is stored. */
export function settleTranscript(result: TranscriptResult): TranscriptResult {
  return { ...result, segments: settleTimeline(result.segments, result.duration) };
}
