import { AppError } from "@transcribe/platform";
import { AUTO_LANGUAGE, isLanguageCode } from "./languages.js";
import { tokenize, type EditableSegment, type SegmentEdit } from "./edit-timing.js";

/**
 * A user's vocabulary (decision 0029): terms spelled as they should appear, each with what
 * it is often misheard as and, where it matters, its language. Pure rules, no I/O.
 */
export interface VocabularyTerm {
  term: string;
  soundsLike?: string[];
  /** A Whisper language code; absent means any language. */
  language?: string;
}

/** Limits (docs/api.md): checked on every save, the first one broken is the 400's message. */
export const MAX_TERMS = 500;
export const MAX_JOB_TERMS = 100;
export const MAX_TERM_LENGTH = 100;
export const MAX_SOUNDS_LIKE = 10;

const invalid = (message: string, field: string) => new AppError("invalid_argument", message, { field });

function cleanTerm(raw: string, field: string): string {
  const term = raw.replace(/\s+/gu, " ").trim();
  if (!term) throw invalid("A vocabulary term cannot be empty", field);
  if ([...term].length > MAX_TERM_LENGTH) throw invalid(`A vocabulary term is too long (max ${MAX_TERM_LENGTH} characters): ${term.slice(0, 40)}…`, field);
  return term;
}

const key = (term: string) => term.toLocaleLowerCase();

/** The vocabulary as saved: trimmed, limits checked, one entry per term (case-insensitive). */
export function validateVocabulary(input: ReadonlyArray<{ term: string; soundsLike?: readonly string[] | undefined; language?: string | undefined }>): VocabularyTerm[] {
  if (input.length > MAX_TERMS) throw invalid(`Too many vocabulary terms (max ${MAX_TERMS})`, "terms");
  const seen = new Set<string>();
  return input.map((entry, i) => {
    const term = cleanTerm(entry.term, `terms[${i}].term`);
    const language = entry.language?.trim().toLowerCase() || undefined;
    if (language && (language === AUTO_LANGUAGE || !isLanguageCode(language))) throw invalid(`Unknown language: ${language}`, `terms[${i}].language`);
    const id = `${key(term)}|${language ?? ""}`;
    if (seen.has(id)) throw invalid(`The term "${term}" is listed twice`, `terms[${i}].term`);
    seen.add(id);
    const raw = entry.soundsLike ?? [];
    if (raw.length > MAX_SOUNDS_LIKE) throw invalid(`Too many "sounds like" spellings for "${term}" (max ${MAX_SOUNDS_LIKE})`, `terms[${i}].sounds_like`);
    const soundsLike = [...new Set(raw.map((s, j) => cleanTerm(s, `terms[${i}].sounds_like[${j}]`)))].filter((s) => s !== term);
    return { term, ...(soundsLike.length ? { soundsLike } : {}), ...(language ? { language } : {}) };
  });
}

/** Extra terms for one transcription (settings.vocabulary). */
export function validateJobTerms(input: readonly string[]): string[] {
  if (input.length > MAX_JOB_TERMS) throw invalid(`Too many vocabulary terms for one transcription (max ${MAX_JOB_TERMS})`, "vocabulary");
  const terms = input.map((t, i) => cleanTerm(t, `vocabulary[${i}]`));
  return terms.filter((t, i) => terms.findIndex((u) => key(u) === key(t)) === i);
}

/**
 * The terms a job's engine hears, most relevant first (the prompt budget cuts from the
 * end): the job's own terms, then the user's terms of the job's language, then the user's
 * terms for any language. Terms of another language are left out; with language "auto"
 * only the terms for any language are used, since the language is not known yet.
 */
export function engineTerms(jobTerms: readonly string[], userTerms: readonly VocabularyTerm[], language: string): string[] {
  const ordered = [
    ...jobTerms,
    ...userTerms.filter((t) => t.language && t.language === language).map((t) => t.term),
    ...userTerms.filter((t) => !t.language).map((t) => t.term),
  ];
  const seen = new Set<string>();
  return ordered.filter((t) => !seen.has(key(t)) && !!seen.add(key(t)));
}

/** The user's "sounds like" pairs that apply to a transcript in `language`. */
export function replacementsFor(userTerms: readonly VocabularyTerm[], language: string): VocabularyTerm[] {
  return userTerms.filter((t) => t.soundsLike?.length && (!t.language || t.language === language));
}

const normal = (word: string) => word.toLocaleLowerCase().replace(/[^\p{L}\p{N}']/gu, "");

/**
 * Replaces every run of words that reads as one of a term's "sounds like" spellings
 * (case and punctuation ignored, punctuation around the run kept) with the term. Returns
 * the edits for the editor's revision path, which keeps the words' timings (the new words
 * share the span of those they replace), or nothing when no segment changes.
 */
export function soundsLikeEdits(segments: readonly EditableSegment[], terms: readonly VocabularyTerm[]): SegmentEdit[] | undefined {
  const patterns = terms
    .flatMap((t) => (t.soundsLike ?? []).map((s) => ({ from: tokenize(s).map(normal).filter(Boolean), to: t.term })))
    .filter((p) => p.from.length > 0)
    // Longer spellings first, so "jelly bean" wins over "jelly".
    .sort((a, b) => b.from.length - a.from.length);
  if (patterns.length === 0) return undefined;
  let changed = false;
  const edits = segments.map((segment) => {
    const words = tokenize(segment.text);
    const out: string[] = [];
    let mine = false;
    for (let i = 0; i < words.length; ) {
      // A run of words, or one word that joins them ("eye-link" for "eye link").
      const run = patterns.find((p) => p.from.every((w, j) => i + j < words.length && normal(words[i + j]!) === w));
      const joined = run ? undefined : patterns.find((p) => p.from.length > 1 && normal(words[i]!) === p.from.join(""));
      const match = run ?? (joined ? { from: [joined.from.join("")], to: joined.to } : undefined);
      if (!match) {
        out.push(words[i]!);
        i += 1;
        continue;
      }
      const first = words[i]!;
      const last = words[i + match.from.length - 1]!;
      const lead = /^[^\p{L}\p{N}]*/u.exec(first)![0];
      const trail = /[^\p{L}\p{N}']*$/u.exec(last)![0];
      const replaced = lead + match.to + trail;
      if (replaced !== words.slice(i, i + match.from.length).join(" ")) mine = true;
      out.push(replaced);
      i += match.from.length;
    }
    changed ||= mine;
    // Untouched segments keep their text byte for byte, so the editor sees no change there.
    return { id: segment.id, text: mine ? out.join(" ") : segment.text };
  });
  return changed ? edits : undefined;
}

/**
 * A Whisper prompt for a provider that takes only text (Groq): the user's prompt, then the
 * terms in order while the whole stays within `maxChars` (Whisper reads at most 224 tokens
 * of prompt; about four characters a token, with room to spare).
 */
export function promptWithTerms(prompt: string | undefined, terms: readonly string[], maxChars = GROQ_PROMPT_CHARS): string | undefined {
  const head = prompt?.trim() ?? "";
  const chosen: string[] = [];
  let length = head.length + 2;
  for (const term of terms) {
    if (length + term.length + 2 > maxChars) continue;
    chosen.push(term);
    length += term.length + 2;
  }
  const text = [head, chosen.length ? `${chosen.join(", ")}.` : ""].filter(Boolean).join(" ");
  return text || undefined;
}

export const GROQ_PROMPT_CHARS = 640;

/** ElevenLabs Scribe's key terms: at most 100, each under 50 characters and 5 words (its API's limits). */
export function scribeKeyterms(terms: readonly string[]): string[] {
  return terms.filter((t) => t.length < 50 && tokenize(t).length <= 5).slice(0, 100);
}
