import { describe, expect, it } from "vitest";
import { patchSaved } from "../src/features/editor/api";
import type { TranscriptSaved as Saved } from "../src/lib/api/generated/zod.gen";

// The editor puts a save's changed segments into the result it saved from (decision 0021).

const segment = (id: number, text: string, start: number) => ({ id, start, end: start + 1, text, words: [{ word: text, start, end: start + 1 }] });
const base = { id: "r", text: "a b c", language: "en", duration: 3, revision: 4, segments: [segment(0, "a", 0), segment(1, "b", 1), segment(2, "c", 2)], speakers: [], speakerTurns: [] };
const revision = (number: number, baseRevision?: number): Saved["revision"] => ({
  number,
  kind: "edit",
  authorId: "u",
  createdAt: new Date(0).toISOString(),
  ...(baseRevision !== undefined ? { baseRevision } : {}),
  changes: { editedSegments: [], addedSegments: [], removedSegments: [], wordsAdded: 0, wordsRemoved: 0 },
});

describe("patchSaved", () => {
  it("puts changed and split-off segments in the answer's order and drops merged ones", () => {
    const saved: Saved = {
      revision: revision(5, 4),
      changed: { ...base, text: "a B x", revision: 5, segments: [segment(1, "B", 1), segment(7, "x", 1.5)] },
      segmentIds: [0, 1, 7],
    };
    const patched = patchSaved(base, saved)!;
    expect(patched.revision).toBe(5);
    expect(patched.text).toBe("a B x");
    expect(patched.segments.map((s) => [s.id, s.text])).toEqual([
      [0, "a"],
      [1, "B"],
      [7, "x"],
    ]);
    // Untouched segments are the cached objects themselves.
    expect(patched.segments[0]).toBe(base.segments[0]);
  });

  it("keeps the result of a save that changed nothing", () => {
    const saved: Saved = { revision: revision(4, 3), changed: { ...base, segments: [] }, segmentIds: [0, 1, 2] };
    expect(patchSaved(base, saved)!.segments).toEqual(base.segments);
  });

  it("refuses to patch a result that is not the save's base, or lacks a segment", () => {
    expect(patchSaved(base, { revision: revision(7, 6), changed: { ...base, revision: 7, segments: [] }, segmentIds: [0, 1, 2] })).toBeUndefined();
    expect(patchSaved(base, { revision: revision(5, 4), changed: { ...base, revision: 5, segments: [] }, segmentIds: [0, 1, 9] })).toBeUndefined();
  });
});
