// The vocabulary as a text file (import/export, and the Account Settings editor): one term
// a line, optionally followed by what it sounds like and its language, separated by "|":
//
//   Real Reaction
//   EyeLink | eye link, I link
//   Zürich | zurich | de
//
// Blank lines and lines starting with "#" are ignored.
import type { VocabularyTerm } from "../../lib/api/generated/zod.gen";

export function parseVocabulary(text: string): VocabularyTerm[] {
  return text
    .split(/\r?\n/u)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [term = "", soundsLike = "", language = ""] = line.split("|").map((part) => part.trim());
      const spellings = soundsLike
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      return { term, ...(spellings.length ? { soundsLike: spellings } : {}), ...(language ? { language } : {}) };
    });
}

export function formatVocabulary(terms: readonly VocabularyTerm[]): string {
  return terms
    .map((t) => {
      const parts = [t.term, t.soundsLike?.join(", ") ?? ""];
      if (t.language) parts.push(t.language);
      while (parts.length > 1 && !parts.at(-1)) parts.pop();
      return parts.join(" | ");
    })
    .join("\n");
}
