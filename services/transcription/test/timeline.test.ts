import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignSpeakers, type SpeakerTurn } from "../src/domain/speakers.js";
import { settleTimeline, settleTranscript, timelineViolations } from "../src/domain/timeline.js";
import type { Segment, TranscriptResult, Word } from "../src/domain/transcriber.js";

/**
 * The transcript timeline rule (src/domain/timeline.ts): whatever an engine, the window
 * merge or the speaker split hands over, the stored transcript has every word inside its
 * segment, segments in order inside the audio, and every word it was given.
 */

const wordTexts = (segments: readonly Segment[]) => segments.flatMap((s) => s.words.map((w) => w.word)).sort();
/** Each segment's words, in order: words stay in their own segment. */
const groups = (segments: readonly Segment[]) =>
  segments
    .filter((s) => s.words.length > 0)
    .map((s) => JSON.stringify(s.words.map((w) => w.word)))
    .sort();

// ---- engine output as it may come: anything ------------------------------------------

const anyTime = fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: -5, max: 130, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 120) },
);
const anyWord: fc.Arbitrary<Word> = fc.record({
  word: fc.oneof(fc.constantFrom(" the", " cat", "", " ", " sat.", "on"), fc.string({ maxLength: 6 })),
  start: anyTime,
  end: anyTime,
  probability: fc.double({ min: 0, max: 1, noNaN: true }),
});
const anySegment: fc.Arbitrary<Segment> = fc.record({
  start: anyTime,
  end: anyTime,
  text: fc.oneof(fc.constantFrom("", "  ", " hello there"), fc.string({ maxLength: 12 })),
  words: fc.array(anyWord, { maxLength: 8 }),
});
const anyDuration = fc.oneof(fc.double({ min: 0, max: 125, noNaN: true }), fc.constantFrom(0, 22.861, 120));

// ---- engine output as it goes wrong in practice: a good transcript, perturbed ------------

/** A transcript that obeys the rule: ms times, words in order, inside their segments. */
const goodTranscript = fc
  .record({
    gaps: fc.array(fc.tuple(fc.integer({ min: 0, max: 800 }), fc.integer({ min: 0, max: 900 })), { minLength: 1, maxLength: 40 }),
    cuts: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    tail: fc.integer({ min: 0, max: 3000 }),
  })
  .map(({ gaps, cuts, tail }) => {
    let t = 0;
    const words: Word[] = gaps.map(([gap, length], i) => {
      const start = t + gap;
      t = start + length;
      return { word: ` w${i}`, start: start / 1000, end: t / 1000 };
    });
    const segments: Segment[] = [];
    for (const [i, w] of words.entries()) {
      if (i === 0 || cuts[i]) segments.push({ start: w.start, end: w.end, text: "", words: [] });
      const s = segments.at(-1)!;
      s.words.push(w);
      s.end = w.end;
      s.text = `${s.text}${w.word}`.trim();
    }
    return { segments, duration: (t + tail) / 1000 };
  });

type Perturbation = (segments: Segment[], duration: number) => void;
const perturbations: Record<string, Perturbation> = {
  "a word ends past its segment": (s) => {
    s[0]!.words.at(-1)!.end += 0.019;
  },
  "a word starts before its segment": (s) => {
    s.at(-1)!.words[0]!.start -= 0.3;
  },
  "segments overlap": (s) => {
    if (s.length > 1) s[1]!.start = s[0]!.start + (s[0]!.end - s[0]!.start) / 2;
  },
  "words out of order": (s) => s.at(-1)!.words.reverse(),
  "a zero-length word": (s) => {
    s[0]!.words[0]!.end = s[0]!.words[0]!.start;
  },
  "a word ends before it starts": (s) => {
    s[0]!.words[0]!.end = s[0]!.words[0]!.start - 0.5;
  },
  "words past the end of the audio": (s, duration) => {
    const last = s.at(-1)!;
    last.words.push({ word: " late", start: duration + 0.4, end: duration + 1.1 });
    last.end = duration + 1.1;
  },
  "segments out of order": (s) => s.reverse(),
};
const perturbed = fc
  .tuple(goodTranscript, fc.subarray(Object.keys(perturbations), { minLength: 1 }))
  .map(([t, names]) => {
    const segments = structuredClone(t.segments);
    for (const name of names) perturbations[name]!(segments, t.duration);
    return { segments, duration: t.duration, names };
  });

describe("transcript timeline (fast-check)", () => {
  it("holds for arbitrary engine output, and no word is lost or moved to another segment", () => {
    fc.assert(
      fc.property(fc.array(anySegment, { maxLength: 10 }), anyDuration, (segments, duration) => {
        const settled = settleTimeline(segments, duration);
        expect(timelineViolations(settled, duration)).toEqual([]);
        expect(wordTexts(settled)).toEqual(wordTexts(segments));
        expect(groups(settled)).toEqual(groups(segments));
        // Only segments with neither words nor text go.
        expect(settled.length).toBe(segments.filter((s) => s.words.length > 0 || s.text.trim() !== "").length);
      }),
      { numRuns: 2000 },
    );
  });

  it("holds for the ways engines really go wrong (words past their segment, overlaps, order, zero length, past the end)", () => {
    fc.assert(
      fc.property(perturbed, ({ segments, duration }) => {
        const settled = settleTimeline(segments, duration);
        expect(timelineViolations(settled, duration)).toEqual([]);
        expect(wordTexts(settled)).toEqual(wordTexts(segments));
        expect(groups(settled)).toEqual(groups(segments));
      }),
      { numRuns: 1000 },
    );
  });

  it("changes nothing on a transcript that already obeys it, and settling twice is settling once", () => {
    fc.assert(
      fc.property(goodTranscript, ({ segments, duration }) => {
        expect(timelineViolations(segments, duration)).toEqual([]);
        expect(settleTimeline(segments, duration)).toEqual(segments);
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.array(anySegment, { maxLength: 10 }), anyDuration, (segments, duration) => {
        const once = settleTimeline(segments, duration);
        expect(settleTimeline(once, duration)).toEqual(once);
      }),
      { numRuns: 1000 },
    );
  });

  it("holds after the speaker split, as the worker stores a diarized transcript", () => {
    const turn: fc.Arbitrary<SpeakerTurn> = fc.record({
      start: fc.double({ min: 0, max: 30, noNaN: true }),
      end: fc.double({ min: 0, max: 30, noNaN: true }),
      speaker: fc.constantFrom("a", "b", "c"),
    });
    fc.assert(
      fc.property(perturbed, fc.array(turn, { maxLength: 8 }), ({ segments, duration }, turns) => {
        const result: TranscriptResult = {
          text: "",
          language: "en",
          sourceLanguage: "en",
          duration,
          segments,
          dropped: [],
          engine: { name: "test", model: "test" },
        };
        const split = { ...result, ...assignSpeakers(settleTimeline(segments, duration), turns) };
        const stored = settleTranscript(split);
        expect(timelineViolations(stored.segments, duration)).toEqual([]);
        expect(wordTexts(stored.segments)).toEqual(wordTexts(segments));
      }),
      { numRuns: 500 },
    );
  });

  it("extends a segment to the word that ends 19 ms after it (the CI failure on an AMD EPYC)", () => {
    const segments: Segment[] = [
      { start: 20.1, end: 22.861, text: "to buy it.", words: [{ word: " to", start: 20.1, end: 20.4 }, { word: " buy", start: 20.4, end: 22.2 }, { word: " it.", start: 22.2, end: 22.88 }] },
      { start: 22.861, end: 24.5, text: "The baker", words: [{ word: " The", start: 23.0, end: 23.4 }, { word: " baker", start: 23.4, end: 24.5 }] },
    ];
    const settled = settleTimeline(segments, 45.3);
    expect(settled.map((s) => [s.start, s.end])).toEqual([
      [20.1, 22.88],
      [22.88, 24.5],
    ]);
    expect(settled.flatMap((s) => s.words.map((w) => [w.start, w.end]))).toEqual(segments.flatMap((s) => s.words.map((w) => [w.start, w.end])));
  });

  it("says what is broken", () => {
    const broken: Segment[] = [
      { start: 1, end: 2, text: "a", words: [{ word: " a", start: 1.5, end: 2.02 }] },
      { start: 1.9, end: 9, text: "b", words: [{ word: " b", start: 1.95, end: 2.5 }] },
    ];
    expect(timelineViolations(broken, 5)).toEqual([
      "word 0.0 [1.5, 2.02] is outside its segment [1, 2]",
      "segment 1 [1.9, 9] is not a span inside [0, 5]",
      "segment 1 starts at 1.9, before the previous one ends (2)",
      "word 1.0 starts at 1.95, before the previous word ends (2.02)",
    ]);
  });
});
