import { readFileSync } from "node:fs";
import path from "node:path";
import { AppError } from "@transcribe/platform";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdit, MAX_SEGMENT_TEXT, type EditableSegment, type SegmentEdit } from "../src/domain/edit-timing.js";
import type { Word } from "../src/domain/transcriber.js";

/** Real word timings: the local engine over espeak-ng speech (fixtures/generate-word-timed.ts). */
const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures", "word-timed.json"), "utf8")) as {
  segments: Array<{ start: number; end: number; text: string; words: Word[] }>;
};
const base: EditableSegment[] = fixture.segments.map((s, id) => ({ id, ...s }));
const allWords = base.flatMap((s) => s.words);

const textOf = (s: EditableSegment) => s.words.map((w) => w.word.trim()).join(" ");
const unchanged = (): SegmentEdit[] => base.map((s) => ({ id: s.id, text: s.text }));

describe("edit timing on the engine's real word timings", () => {
  it("has a usable fixture: several segments of timed words", () => {
    expect(base.length).toBeGreaterThanOrEqual(4);
    expect(allWords.length).toBeGreaterThan(40);
  });

  it("keeps a save that changes nothing byte for byte", () => {
    const { segments, changes } = applyEdit(base, unchanged(), base.length);
    expect(segments).toEqual(base);
    expect(changes.edited_segments).toEqual([]);
    expect(changes.words_added + changes.words_removed).toBe(0);
  });

  it("gives a corrected word the misrecognised word's exact span and keeps its neighbours", () => {
    const target = base[0]!;
    const index = 3;
    const tokens = target.words.map((w) => w.word.trim());
    tokens[index] = "Wednesday";
    const edits = unchanged();
    edits[0] = { id: 0, text: tokens.join(" ") };
    const { segments, changes } = applyEdit(base, edits, base.length);
    const words = segments[0]!.words;
    expect(words[index]).toEqual({ word: "Wednesday", start: target.words[index]!.start, end: target.words[index]!.end });
    words.forEach((w, i) => i !== index && expect(w).toBe(target.words[i]));
    expect(changes).toMatchObject({ edited_segments: [0], words_added: 1, words_removed: 1 });
    expect(segments.slice(1)).toEqual(base.slice(1));
  });

  it("spreads two words over the one they replace by character length", () => {
    const target = base[1]!;
    const old = target.words[2]!;
    const tokens = target.words.map((w) => w.word.trim());
    tokens.splice(2, 1, "ab", "cdef");
    const edits = unchanged();
    edits[1] = { id: 1, text: tokens.join(" ") };
    const words = applyEdit(base, edits, base.length).segments[1]!.words;
    expect(words[2]!.start).toBe(old.start);
    expect(words[3]!.end).toBe(old.end);
    expect(words[2]!.end).toBeCloseTo(old.start + ((old.end - old.start) * 2) / 6, 9);
  });

  it("splits a segment at a word: both halves keep their words' times, the new one gets a new id", () => {
    const target = base[2]!;
    const tokens = target.words.map((w) => w.word.trim());
    const edits = unchanged();
    edits.splice(2, 1, { id: 2, text: tokens.slice(0, 4).join(" ") }, { text: tokens.slice(4).join(" ") });
    const { segments, nextSegmentId, changes } = applyEdit(base, edits, base.length);
    expect(segments).toHaveLength(base.length + 1);
    expect(segments[2]!.words).toEqual(target.words.slice(0, 4));
    expect(segments[3]!.words).toEqual(target.words.slice(4));
    expect(segments[3]!.id).toBe(base.length);
    expect(nextSegmentId).toBe(base.length + 1);
    expect(segments[2]!.end).toBe(target.words[3]!.end);
    expect(segments[3]!.start).toBe(target.words[4]!.start);
    expect(changes.added_segments).toEqual([base.length]);
  });

  it("merges a segment with the next without touching a word's time", () => {
    const edits = unchanged();
    edits.splice(3, 2, { id: 3, text: `${base[3]!.text} ${base[4]!.text}` });
    const { segments, changes } = applyEdit(base, edits, base.length);
    expect(segments[3]!.words).toEqual([...base[3]!.words, ...base[4]!.words]);
    expect(segments[3]!.start).toBe(base[3]!.words[0]!.start);
    expect(changes.removed_segments).toEqual([4]);
  });

  it("passes speakers through, sets and clears them", () => {
    const withSpeakers = base.map((s) => ({ ...s, speaker: "S1" }));
    const edits: SegmentEdit[] = withSpeakers.map((s) => ({ id: s.id, text: s.text }));
    edits[1] = { id: 1, text: base[1]!.text, speaker: "S2" };
    edits[2] = { id: 2, text: base[2]!.text, speaker: "" };
    const { segments } = applyEdit(withSpeakers, edits, base.length);
    expect(segments.map((s) => s.speaker)).toEqual(["S1", "S2", undefined, "S1", "S1", "S1"]);
  });

  it("refuses unknown, repeated and reordered ids and overlong text, naming the field", () => {
    const fail = (edits: SegmentEdit[]) => {
      try {
        applyEdit(base, edits, base.length);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return error as AppError;
      }
      throw new Error("accepted");
    };
    expect(fail([{ id: 99, text: "x" }]).message).toBe("Unknown segment id 99");
    expect(fail([{ id: 1, text: "x" }, { id: 1, text: "y" }]).message).toBe("Segment id 1 appears twice");
    expect(fail([{ id: 2, text: "x" }, { id: 1, text: "y" }]).message).toBe("Segments cannot be reordered");
    const long = fail([{ id: 0, text: "a".repeat(MAX_SEGMENT_TEXT + 1) }]);
    expect(long.message).toBe(`Segment text is too long: at most ${MAX_SEGMENT_TEXT} characters`);
    expect(long.detail).toMatchObject({ field: "segments[0].text" });
  });
});

// ---- random edit scripts ------------------------------------------------------------

interface Token {
  text: string;
  /** Index in allWords while the token is the engine's word, untouched. */
  orig?: number;
}
interface ScriptSegment {
  id?: number;
  tokens: Token[];
}

/** Words that never occur in the fixture, so an inserted word is never mistaken for a kept one. */
const vocabulary = ["zebra", "quartz", "Jose", "naïve", "x", "extraordinarily", "99", "über-long-compound", "Q."];

type Op =
  | { kind: "replace" | "insert" | "delete" | "split"; seg: number; at: number; word: string }
  | { kind: "merge" | "drop"; seg: number }
  | { kind: "append"; seg: number; word: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom("replace", "insert", "delete", "split"), seg: fc.nat(), at: fc.nat(), word: fc.constantFrom(...vocabulary) }),
  fc.record({ kind: fc.constantFrom("merge", "drop"), seg: fc.nat() }),
  fc.record({ kind: fc.constant("append"), seg: fc.nat(), word: fc.constantFrom(...vocabulary) }),
) as fc.Arbitrary<Op>;

function runScript(ops: Op[]): ScriptSegment[] {
  let offset = 0;
  const state: ScriptSegment[] = base.map((s) => ({
    id: s.id,
    tokens: s.words.map(() => ({ text: allWords[offset]!.word.trim(), orig: offset++ })),
  }));
  for (const op of ops) {
    if (state.length === 0) break;
    const seg = state[op.seg % state.length]!;
    const index = op.seg % state.length;
    switch (op.kind) {
      case "replace":
        if (seg.tokens.length > 0) seg.tokens[op.at % seg.tokens.length] = { text: op.word };
        break;
      case "insert":
        seg.tokens.splice(op.at % (seg.tokens.length + 1), 0, { text: op.word });
        break;
      case "append":
        seg.tokens.push({ text: op.word });
        break;
      case "delete":
        if (seg.tokens.length > 0) seg.tokens.splice(op.at % seg.tokens.length, 1);
        break;
      case "split": {
        if (seg.tokens.length < 2) break;
        const at = 1 + (op.at % (seg.tokens.length - 1));
        state.splice(index + 1, 0, { tokens: seg.tokens.splice(at) });
        break;
      }
      case "merge":
        if (index + 1 < state.length) seg.tokens.push(...state.splice(index + 1, 1)[0]!.tokens);
        break;
      case "drop":
        state.splice(index, 1);
        break;
    }
  }
  return state;
}

describe("edit timing properties (fast-check, real timings)", () => {
  it("every word inside its segment, starts non-decreasing, untouched words keep their exact times", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), (ops) => {
        const script = runScript(ops);
        const edits: SegmentEdit[] = script.map((s) => ({ ...(s.id !== undefined ? { id: s.id } : {}), text: s.tokens.map((t) => t.text).join(" ") }));
        const { segments } = applyEdit(base, edits, base.length);

        const out = segments.flatMap((s) => s.words);
        let previousStart = -Infinity;
        let previousSegmentStart = -Infinity;
        for (const segment of segments) {
          expect(segment.words.length).toBeGreaterThan(0);
          expect(segment.start).toBeGreaterThanOrEqual(previousSegmentStart);
          previousSegmentStart = segment.start;
          for (const w of segment.words) {
            expect(w.start).toBeGreaterThanOrEqual(segment.start);
            expect(w.end).toBeLessThanOrEqual(segment.end);
            expect(w.end).toBeGreaterThanOrEqual(w.start);
            expect(w.start).toBeGreaterThanOrEqual(previousStart);
            previousStart = w.start;
          }
        }
        // The text is what was typed, segment by segment (empty segments drop out).
        expect(segments.map(textOf)).toEqual(script.filter((s) => s.tokens.length > 0).map((s) => s.tokens.map((t) => t.text).join(" ")));

        // Untouched words keep their exact times. Where deletions left two equal words
        // indistinguishable (only deleted words between them), either one's times are right.
        const kept = new Set(script.flatMap((s) => s.tokens.flatMap((t) => (t.orig === undefined ? [] : [t.orig]))));
        const has = (i: number) => out.some((w) => w.word === allWords[i]!.word && w.start === allWords[i]!.start && w.end === allWords[i]!.end);
        for (const i of kept) {
          if (has(i)) continue;
          const twin = (direction: number) => {
            for (let j = i + direction; j >= 0 && j < allWords.length && !kept.has(j); j += direction) {
              if (allWords[j]!.word.trim() === allWords[i]!.word.trim() && has(j)) return true;
            }
            return false;
          };
          expect(twin(-1) || twin(1), `word ${i} "${allWords[i]!.word}" lost its times`).toBe(true);
        }
      }),
      { numRuns: 400, seed: 19 },
    );
  });
});
