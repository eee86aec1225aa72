import { describe, expect, it } from "vitest";
import {
  clearDraft,
  commit,
  countMatches,
  draftFrom,
  historyOf,
  isDirty,
  loadDraft,
  mergeWithNext,
  redo,
  replaceMatches,
  setText,
  splitAt,
  storeDraft,
  toSaveBody,
  undo,
} from "../src/features/editor/draft";
import { isTyping, shortcutFor } from "../src/features/editor/shortcuts";

const base = draftFrom("t1", 3, [
  { id: 0, text: " The Café opens at seven." },
  { id: 1, text: " The cafe closes late, cafés too.", speaker: "S2" },
]);

describe("editor draft", () => {
  it("splits at the cursor into a new segment without id, merges back, and saves the list", () => {
    const split = splitAt(base, "s0", "The Café".length);
    expect(split.segments.map((s) => [s.id, s.text])).toEqual([
      [0, "The Café"],
      [undefined, "opens at seven."],
      [1, "The cafe closes late, cafés too."],
    ]);
    expect(splitAt(base, "s0", 0)).toBe(base);
    const merged = mergeWithNext(split, "s0");
    expect(merged.segments[0]!.text).toBe("The Café opens at seven.");
    expect(isDirty(merged, base)).toBe(false);
    expect(toSaveBody(split)).toEqual({
      baseRevision: 3,
      segments: [{ id: 0, text: "The Café" }, { text: "opens at seven." }, { id: 1, text: "The cafe closes late, cafés too.", speaker: "S2" }],
    });
  });

  it("finds and replaces with case and whole-word options, all or one, in one change", () => {
    expect(countMatches(base, "café", { caseSensitive: false, wholeWord: false })).toBe(2);
    expect(countMatches(base, "café", { caseSensitive: true, wholeWord: false })).toBe(1);
    expect(countMatches(base, "caf", { caseSensitive: false, wholeWord: true })).toBe(0);
    const all = replaceMatches(base, "cafe", "$& bar", { caseSensitive: false, wholeWord: true });
    expect(all.replaced).toBe(1);
    expect(all.draft.segments[1]!.text).toBe("The $& bar closes late, cafés too.");
    const one = replaceMatches(base, "the", "A", { caseSensitive: false, wholeWord: true }, "first");
    expect(one.replaced).toBe(1);
    expect(one.draft.segments.map((s) => s.text)).toEqual(["A Café opens at seven.", "The cafe closes late, cafés too."]);
  });

  it("undoes and redoes edits", () => {
    let history = historyOf(base);
    history = commit(history, setText(history.present, "s0", "One"));
    history = commit(history, setText(history.present, "s0", "Two"));
    history = undo(history);
    expect(history.present.segments[0]!.text).toBe("One");
    history = redo(history);
    expect(history.present.segments[0]!.text).toBe("Two");
    history = undo(undo(history));
    expect(history.present).toBe(base);
    expect(undo(history)).toBe(history);
  });

  it("keeps a draft in local storage across a reload until cleared", () => {
    const edited = setText(base, "s1", "typed before the network dropped");
    storeDraft(edited);
    expect(loadDraft("t1")).toEqual(edited);
    expect(loadDraft("t2")).toBeUndefined();
    clearDraft("t1");
    expect(loadDraft("t1")).toBeUndefined();
  });
});

describe("editor shortcuts", () => {
  const key = (key: string, extra: Partial<KeyboardEvent> = {}) => ({ key, code: `Key${key.toUpperCase()}`, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...extra });
  it("letters act only outside text fields; Ctrl and Alt ones act everywhere", () => {
    expect(shortcutFor(key("k"), false)).toBe("toggle");
    expect(shortcutFor(key("k"), true)).toBeUndefined();
    expect(shortcutFor(key("k", { altKey: true }), true)).toBe("toggle");
    expect(shortcutFor(key("s", { ctrlKey: true }), true)).toBe("save");
    expect(shortcutFor(key("z", { ctrlKey: true }), true)).toBeUndefined();
    expect(shortcutFor(key("z", { metaKey: true, shiftKey: true }), false)).toBe("redo");
    expect(shortcutFor({ ...key("?"), code: "Slash", shiftKey: true }, false)).toBe("help");
    expect(shortcutFor(key("x"), false)).toBeUndefined();
    const textarea = document.createElement("textarea");
    const checkbox = Object.assign(document.createElement("input"), { type: "checkbox" });
    expect(isTyping(textarea)).toBe(true);
    expect(isTyping(checkbox)).toBe(false);
    expect(isTyping(document.body)).toBe(false);
  });
});
