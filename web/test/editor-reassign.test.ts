import { describe, expect, it } from "vitest";
import { commit, draftFrom, historyOf, isDirty, reassignSpeaker, toSaveBody, undo } from "../src/features/editor/draft";

// Giving segments to another speaker in the editor (decision 0028): one draft change, saved
// like any edit.
const original = draftFrom("t", 3, [
  { id: 0, text: "Hello there.", speaker: "S1" },
  { id: 1, text: "Hi.", speaker: "S2" },
  { id: 2, text: "How are you?", speaker: "S1" },
]);

describe("reassigning speakers in the editor draft", () => {
  it("gives a selection to a speaker in one change that undo takes back whole", () => {
    const next = reassignSpeaker(original, new Set(["s1", "s2"]), "S1");
    expect(next.segments.map((s) => s.speaker)).toEqual(["S1", "S1", "S1"]);
    expect(isDirty(next, original)).toBe(true);
    expect(toSaveBody(next)).toEqual({
      baseRevision: 3,
      segments: [
        { id: 0, text: "Hello there.", speaker: "S1" },
        { id: 1, text: "Hi.", speaker: "S1" },
        { id: 2, text: "How are you?", speaker: "S1" },
      ],
    });
    const history = commit(historyOf(original), next);
    expect(undo(history).present).toBe(original);
  });

  it("changes nothing when every selected segment is already that speaker's", () => {
    expect(reassignSpeaker(original, new Set(["s0", "s2"]), "S1")).toBe(original);
    expect(reassignSpeaker(original, new Set(), "S2")).toBe(original);
  });
});
