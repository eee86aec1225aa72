import { describe, expect, it } from "vitest";
import { applyEdit } from "../src/domain/edit-timing.js";
import { validateSettings } from "../src/domain/settings.js";
import { engineTerms, promptWithTerms, replacementsFor, scribeKeyterms, soundsLikeEdits, validateJobTerms, validateVocabulary } from "../src/domain/vocabulary.js";

const words = (text: string, start: number) => text.split(" ").map((word, i) => ({ word: ` ${word}`, start: start + i, end: start + i + 0.8 }));

describe("vocabulary rules", () => {
  it("validates and trims the saved vocabulary; refuses what breaks the limits", () => {
    expect(validateVocabulary([{ term: "  Real  Reaction ", soundsLike: ["real reaction", "Real Reaction"], language: "EN" }])).toEqual([
      { term: "Real Reaction", soundsLike: ["real reaction"], language: "en" },
    ]);
    expect(() => validateVocabulary([{ term: "" }])).toThrow("A vocabulary term cannot be empty");
    expect(() => validateVocabulary([{ term: "a".repeat(101) }])).toThrow(/too long \(max 100/);
    expect(() => validateVocabulary([{ term: "EyeLink" }, { term: "eyelink" }])).toThrow(/listed twice/);
    expect(() => validateVocabulary([{ term: "EyeLink", language: "auto" }])).toThrow("Unknown language: auto");
    expect(() => validateJobTerms(Array.from({ length: 101 }, (_, i) => `t${i}`))).toThrow(/max 100/);
    expect(validateSettings({ language: "en", vocabulary: [" syncing ", "Syncing"] }).settings.vocabulary).toEqual(["syncing"]);
    expect(validateSettings({ language: "en" }).settings).not.toHaveProperty("vocabulary");
  });

  it("puts the job's terms first, then the language's, then any language's; other languages are left out", () => {
    const user = [{ term: "Zürich", language: "de" }, { term: "EyeLink" }, { term: "Real Reaction", language: "en" }];
    expect(engineTerms(["syncing", "eyelink"], user, "en")).toEqual(["syncing", "eyelink", "Real Reaction"]);
    expect(engineTerms([], user, "auto")).toEqual(["EyeLink"]);
    expect(replacementsFor([{ term: "A", soundsLike: ["a"] }, { term: "B" }, { term: "C", soundsLike: ["c"], language: "de" }], "en")).toEqual([{ term: "A", soundsLike: ["a"] }]);
  });

  it("fits Groq's prompt and Scribe's key-term limits", () => {
    expect(promptWithTerms("Meeting notes.", ["EyeLink", "Real Reaction"])).toBe("Meeting notes. EyeLink, Real Reaction.");
    expect(promptWithTerms(undefined, [])).toBeUndefined();
    expect(promptWithTerms("x".repeat(630), ["EyeLink", "A"])).toBe(`${"x".repeat(630)} A.`);
    expect(scribeKeyterms(["EyeLink", "one two three four five six", "y".repeat(60)])).toEqual(["EyeLink"]);
  });

  it("replaces sounds-like spellings as editor edits that keep the words' times", () => {
    const segments = [
      { id: 0, start: 0, end: 5.8, text: " We moved to the other eye link, yes.", words: words("We moved to the other eye link, yes.", 0) },
      { id: 1, start: 8, end: 10.8, text: " Nothing here.", words: words("Nothing here.", 8) },
    ];
    const edits = soundsLikeEdits(segments, [{ term: "EyeLink", soundsLike: ["eye link", "I link"] }])!;
    expect(edits[0]!.text).toBe("We moved to the other EyeLink, yes.");
    expect(edits[1]!.text).toBe(segments[1]!.text);
    const outcome = applyEdit(segments, edits, 2);
    const edited = outcome.segments[0]!;
    expect(edited.words.map((w) => w.word.trim())).toEqual(["We", "moved", "to", "the", "other", "EyeLink,", "yes."]);
    const term = edited.words[5]!;
    expect([term.start, term.end]).toEqual([5, 6.8]);
    expect(edited.start).toBe(0);
    expect(outcome.segments[1]).toEqual(segments[1]);
    expect(outcome.changes.edited_segments).toEqual([0]);
    expect(soundsLikeEdits(segments, [{ term: "EyeLink" }])).toBeUndefined();
    const hyphen = [{ ...segments[0]!, text: " the other eye-link." }];
    expect(soundsLikeEdits(hyphen, [{ term: "EyeLink", soundsLike: ["eye link"] }])![0]!.text).toBe("the other EyeLink.");
    expect(soundsLikeEdits(segments, [{ term: "Nothing", soundsLike: ["nothing"] }])).toBeUndefined();
  });
});
