import { AppError } from "@transcribe/platform";
import { describe, expect, it } from "vitest";
import { applyEdit, type EditableSegment } from "../src/domain/edit-timing.js";
import { refuseControlCharacters, validateSpeakerName } from "../src/domain/speakers.js";

// What the audit sent (a cue injected into every subtitle export) and one of each class
// of character the rule refuses: C0 (CR, LF, TAB, BEL), DEL, C1 (NEL), the line and
// paragraph separators, bidi embedding/override (U+202A–U+202E) and isolates (U+2066–U+2069).
const INJECTED_CUE = "X\n\n00:00:00.000 --> 00:09:00.000\nINJECTED CUE";
const hostile = [
  INJECTED_CUE,
  "Al\rice",
  "Al\r\nice",
  "Al\tice",
  "Al\u0007ice",
  "Al\u0000ice",
  "Al\u007fice",
  "Al\u0085ice",
  "Al\u009fice",
  "Al\u2028ice",
  "Al\u2029ice",
  "Al\u202aice",
  "Alice \u202etxt.exe",
  "Al\u2066ice",
  "Al\u2069ice",
];
// Names people really have, including what only an export must escape (& < >) and the
// direction marks (LRM/RLM) that right-to-left names may legitimately carry.
const fine = ["Alice Smith", "Zoë O'Brien-Ångström", "李雷", "محمد\u200f", "Bob <the PM> & co", "S1", "José 🎙"];

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("accepted");
}

describe("one rule for names and speaker labels: no control or bidi-control characters", () => {
  it("refuseControlCharacters names the subject and the field, and passes ordinary text", () => {
    for (const value of hostile) {
      const error = refusal(() => refuseControlCharacters(value, "Speaker name", "name"));
      expect(error.code).toBe("invalid_argument");
      expect(error.message).toBe("Speaker name cannot contain line breaks, tabs or control characters");
      expect(error.detail).toMatchObject({ field: "name" });
    }
    expect(refusal(() => refuseControlCharacters("A\nB", "Speaker name", "name")).detail).toMatchObject({ character: "U+000A" });
    expect(refusal(() => refuseControlCharacters("A\u202eB", "Speaker", "segments[3].speaker")).detail).toMatchObject({ field: "segments[3].speaker", character: "U+202E" });
    for (const value of fine) expect(() => refuseControlCharacters(value, "Speaker name", "name")).not.toThrow();
  });

  it("speaker and voice names (validateSpeakerName): refused with a clear message; edges are still trimmed", () => {
    for (const value of hostile) {
      expect(() => validateSpeakerName(value), JSON.stringify(value)).toThrow("Speaker name cannot contain line breaks, tabs or control characters");
    }
    for (const value of fine) expect(validateSpeakerName(value)).toBe(value);
    // Trimming (the documented rule) comes first: what it removes is never stored.
    expect(validateSpeakerName("\t Alice \r\n")).toBe("Alice");
    expect(() => validateSpeakerName("\n")).toThrow("Speaker name cannot be empty");
  });

  it("segment speaker labels in an editor save: a new label with control characters is refused, naming the segment", () => {
    const base: EditableSegment[] = [
      { id: 0, start: 0, end: 1, text: "Hello there.", words: [], speaker: "S1" },
      { id: 1, start: 1, end: 2, text: "General Kenobi.", words: [], speaker: "S2" },
    ];
    for (const speaker of ["<b>Eve</b>\n\nS9", ...hostile]) {
      const error = refusal(() => applyEdit(base, [{ id: 0, text: "Hello there." }, { id: 1, text: "General Kenobi.", speaker }], 2));
      expect(error.message).toBe("Speaker cannot contain line breaks, tabs or control characters");
      expect(error.detail).toMatchObject({ field: "segments[1].speaker" });
    }
    // A split (a segment without id) is checked too.
    expect(refusal(() => applyEdit(base, [{ id: 0, text: "Hello" }, { text: "there.", speaker: "S1\n" }, { id: 1, text: "General Kenobi." }], 2)).detail).toMatchObject({
      field: "segments[1].speaker",
    });
    // Labels are passed through (decision 0021): any printable label is still accepted, and "" clears.
    const { segments } = applyEdit(base, [{ id: 0, text: "Hello there.", speaker: "<b>Eve</b>" }, { id: 1, text: "General Kenobi.", speaker: "" }], 2);
    expect(segments.map((s) => s.speaker)).toEqual(["<b>Eve</b>", undefined]);
  });

  it("a label already stored in the base revision (saved before the rule) does not lock the editor", () => {
    const legacy: EditableSegment[] = [
      { id: 0, start: 0, end: 1, text: "Hello there.", words: [], speaker: "Eve\n\nS9" },
      { id: 1, start: 1, end: 2, text: "General Kenobi.", words: [], speaker: "S2" },
    ];
    // The editor sends every segment's label back on every save.
    const { segments } = applyEdit(legacy, [{ id: 0, text: "Hello there!", speaker: "Eve\n\nS9" }, { id: 1, text: "General Kenobi.", speaker: "S2" }], 2);
    expect(segments.map((s) => s.speaker)).toEqual(["Eve\n\nS9", "S2"]);
    // ...but it cannot spread a label that was not there.
    expect(() => applyEdit(legacy, [{ id: 0, text: "Hello there." }, { id: 1, text: "General Kenobi.", speaker: "Eve\n\nS8" }], 2)).toThrow(
      "Speaker cannot contain line breaks, tabs or control characters",
    );
  });
});
