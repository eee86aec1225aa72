import { AppError } from "@transcribe/platform";
import { diffArrays } from "diff";
import { FORBIDDEN_NAME_CHARACTER, refuseControlCharacters } from "./speakers.js";
import type { Word } from "./transcriber.js";

/**
 * Editing a timed transcript without losing its timings (decision 0021). Pure: no I/O.
 *
 * An edit is the whole new list of segments, in order. A segment that names an `id` of
 * the base revision continues that segment; one without an id is new (a split, or text
 * typed between segments). Base segments no edit names are merged into the named segment
 * before them (or deleted, which is the same thing to the words: they are diffed away).
 *
 * Words are diffed per group (one named segment, the unnamed ones after it, and the base
 * segments it absorbed) with Myers' diff on the words' text:
 * - an unchanged word keeps its exact start, end, probability and anything else it had;
 * - changed or inserted words share the span of the words they replace, split by
 *   character length; an insertion with nothing replaced gets the gap between its kept
 *   neighbours (zero long when there is none);
 * - deleted words drop out;
 * - a changed segment's start/end are its first word's start and its last word's end;
 *   a segment whose text and speaker did not change is kept as it was, byte for byte.
 * Starts never decrease, and no word ends before it starts.
 */

export interface EditableSegment {
  /** Stable within a transcript: the engine's position, then new ids for added segments. */
  id: number;
  start: number;
  end: number;
  text: string;
  words: Word[];
  /** A diarization label such as "S1"; passed through, set or cleared ("") by an edit. */
  speaker?: string;
}

export interface SegmentEdit {
  id?: number | undefined;
  text: string;
  speaker?: string | undefined;
}

export interface ChangeSummary {
  edited_segments: number[];
  added_segments: number[];
  removed_segments: number[];
  words_added: number;
  words_removed: number;
}

export interface EditOutcome {
  segments: EditableSegment[];
  nextSegmentId: number;
  changes: ChangeSummary;
}

/** Limits of one save (docs/api.md). The BFF's 1 MiB body limit comes first in practice. */
export const MAX_SEGMENT_TEXT = 5_000;
export const MAX_SEGMENTS = 20_000;
export const MAX_SPEAKER_LENGTH = 64;

const invalid = (message: string, detail: Record<string, unknown>) => new AppError("invalid_argument", message, detail);

export function tokenize(text: string): string[] {
  return text.split(/\s+/u).filter(Boolean);
}

const wordText = (w: Word) => w.word.trim();

/** A segment without words (a provider that gives none) gets its text spread over its span. */
function wordsOf(segment: EditableSegment): Word[] {
  if (segment.words.length > 0) return segment.words;
  return spread(tokenize(segment.text), segment.start, Math.max(segment.start, segment.end));
}

/** Tokens share [start, end] in proportion to their length in characters. */
export function spread(tokens: string[], start: number, end: number): Word[] {
  const total = tokens.reduce((n, t) => n + t.length, 0);
  const span = Math.max(0, end - start);
  let done = 0;
  return tokens.map((token) => {
    const from = start + (span * done) / total;
    done += token.length;
    // The last word ends exactly at `end`, whatever the floating point sum says.
    const to = done === total ? start + span : start + (span * done) / total;
    return { word: token, start: from, end: to };
  });
}

export function validateEdits(base: readonly EditableSegment[], edits: readonly SegmentEdit[]): void {
  if (edits.length > MAX_SEGMENTS) throw invalid(`A transcript can have at most ${MAX_SEGMENTS} segments`, { field: "segments" });
  const position = new Map(base.map((s, i) => [s.id, i]));
  const seen = new Set<number>();
  let stored: Set<string | undefined> | undefined;
  let last = -1;
  edits.forEach((edit, index) => {
    if (edit.text.length > MAX_SEGMENT_TEXT) {
      throw invalid(`Segment text is too long: at most ${MAX_SEGMENT_TEXT} characters`, { field: `segments[${index}].text`, limit: MAX_SEGMENT_TEXT });
    }
    if (edit.speaker !== undefined && edit.speaker.length > MAX_SPEAKER_LENGTH) {
      throw invalid(`Speaker is too long: at most ${MAX_SPEAKER_LENGTH} characters`, { field: `segments[${index}].speaker` });
    }
    // A label is passed through (any S1, S2… or a caller's own), but never one that breaks
    // exports. One the base revision already holds (saved before this rule) is let through
    // unchanged, since the editor sends every segment's label back on every save.
    if (edit.speaker && FORBIDDEN_NAME_CHARACTER.test(edit.speaker)) {
      stored ??= new Set(base.map((s) => s.speaker));
      if (!stored.has(edit.speaker)) refuseControlCharacters(edit.speaker, "Speaker", `segments[${index}].speaker`);
    }
    if (edit.id === undefined) return;
    const at = position.get(edit.id);
    if (at === undefined) throw invalid(`Unknown segment id ${edit.id}`, { field: `segments[${index}].id`, segment_id: edit.id });
    if (seen.has(edit.id)) throw invalid(`Segment id ${edit.id} appears twice`, { field: `segments[${index}].id`, segment_id: edit.id });
    if (at < last) throw invalid("Segments cannot be reordered", { field: `segments[${index}].id`, segment_id: edit.id });
    seen.add(edit.id);
    last = at;
  });
}

interface Group {
  /** Edits in this group (the named one first, unless this is the leading group). */
  edits: SegmentEdit[];
  /** Base segments whose words this group's text replaces. */
  old: EditableSegment[];
  /** Where the base before and after this group stops and starts again (for pure insertions). */
  lower: number;
  upper: number;
}

function groupsOf(base: readonly EditableSegment[], edits: readonly SegmentEdit[]): Group[] {
  const position = new Map(base.map((s, i) => [s.id, i]));
  const anchors: number[] = [];
  edits.forEach((e, i) => e.id !== undefined && anchors.push(i));
  const groups: Group[] = [];
  const baseWords = base.map(wordsOf);
  const endBefore = (index: number) => {
    for (let i = index - 1; i >= 0; i--) {
      const w = baseWords[i]!;
      if (w.length > 0) return w[w.length - 1]!.end;
    }
    return 0;
  };
  const startFrom = (index: number, fallback: number) => {
    for (let i = index; i < base.length; i++) {
      const w = baseWords[i]!;
      if (w.length > 0) return w[0]!.start;
    }
    return fallback;
  };
  const make = (editFrom: number, editTo: number, baseFrom: number, baseTo: number): Group => {
    const lower = endBefore(baseFrom);
    return { edits: edits.slice(editFrom, editTo), old: base.slice(baseFrom, baseTo), lower, upper: Math.max(lower, startFrom(baseTo, lower)) };
  };
  const firstBase = anchors.length > 0 ? position.get(edits[anchors[0]!]!.id!)! : base.length;
  const firstEdit = anchors.length > 0 ? anchors[0]! : edits.length;
  if (firstEdit > 0 || firstBase > 0) groups.push(make(0, firstEdit, 0, firstBase));
  anchors.forEach((editIndex, k) => {
    const baseFrom = position.get(edits[editIndex]!.id!)!;
    const nextEdit = k + 1 < anchors.length ? anchors[k + 1]! : edits.length;
    const baseTo = k + 1 < anchors.length ? position.get(edits[anchors[k + 1]!]!.id!)! : base.length;
    groups.push(make(editIndex, nextEdit, baseFrom, baseTo));
  });
  return groups;
}

/** Times the new tokens of one group against its old words. */
function timeGroup(group: Group, before: Word | undefined): { perEdit: Word[][]; added: number; removed: number } {
  const oldWords = group.old.flatMap(wordsOf);
  const tokens: string[] = [];
  const owner: number[] = [];
  group.edits.forEach((edit, i) => {
    for (const token of tokenize(edit.text)) {
      tokens.push(token);
      owner.push(i);
    }
  });
  const timed: Word[] = [];
  let added = 0;
  let removed = 0;
  let oi = 0;
  // The last word placed so far, across groups, so starts never go back.
  let previous: Word | undefined = before;
  let pendingRemoved: Word[] = [];
  let pendingAdded: string[] = [];
  const flush = () => {
    if (pendingAdded.length > 0) {
      const next = oldWords[oi];
      const floor = previous ? previous.start : group.lower;
      let start: number;
      let end: number;
      if (pendingRemoved.length > 0) {
        start = pendingRemoved[0]!.start;
        end = Math.max(...pendingRemoved.map((w) => w.end));
      } else {
        start = previous ? previous.end : group.lower;
        end = next ? next.start : group.upper;
        // Overlapping neighbours leave no gap: stay at the next word's start.
        start = Math.min(start, end);
      }
      end = Math.min(end, next ? next.start : group.upper);
      start = Math.max(start, floor);
      end = Math.max(end, start);
      const words = spread(pendingAdded, start, end);
      timed.push(...words);
      previous = words[words.length - 1];
      added += pendingAdded.length;
    }
    removed += pendingRemoved.length;
    pendingRemoved = [];
    pendingAdded = [];
  };
  for (const part of diffArrays(oldWords.map(wordText), tokens)) {
    if (part.added) pendingAdded.push(...part.value);
    else if (part.removed) {
      pendingRemoved.push(...oldWords.slice(oi, oi + part.count!));
      oi += part.count!;
    } else {
      // A removal before an addition is one hunk; diff may list them in either order.
      flush();
      for (let k = 0; k < part.count!; k++) {
        const word = oldWords[oi++]!;
        timed.push(word);
        previous = word;
      }
    }
  }
  flush();
  const perEdit: Word[][] = group.edits.map(() => []);
  timed.forEach((w, i) => perEdit[owner[i]!]!.push(w));
  return { perEdit, added, removed };
}

const sameTokens = (segment: EditableSegment, edit: SegmentEdit) => {
  if (segment.text === edit.text) return true;
  const a = tokenize(segment.text);
  const b = tokenize(edit.text);
  return a.length === b.length && a.every((t, i) => t === b[i]);
};

/**
 * Applies a save to the base revision's segments. Throws AppError(invalid_argument) for
 * unknown, repeated or reordered ids and texts over the limits, before anything else.
 */
export function applyEdit(base: readonly EditableSegment[], edits: readonly SegmentEdit[], nextSegmentId: number): EditOutcome {
  validateEdits(base, edits);
  let nextId = Math.max(nextSegmentId, ...base.map((s) => s.id + 1), 0);
  const out: EditableSegment[] = [];
  const changes: ChangeSummary = { edited_segments: [], added_segments: [], removed_segments: [], words_added: 0, words_removed: 0 };
  const kept = new Set<number>();
  const lastWord = () => out[out.length - 1]?.words.at(-1);
  for (const group of groupsOf(base, edits)) {
    const anchor = group.edits[0]?.id !== undefined ? group.edits[0] : undefined;
    const anchorBase = anchor ? group.old[0] : undefined;
    // The common case of a long transcript: one segment, untouched.
    if (anchor && anchorBase && group.edits.length === 1 && group.old.length === 1 && sameTokens(anchorBase, anchor)) {
      const speaker = anchor.speaker === undefined ? anchorBase.speaker : anchor.speaker || undefined;
      if (speaker === anchorBase.speaker) out.push(anchorBase);
      else {
        out.push(withSpeaker(anchorBase, speaker));
        changes.edited_segments.push(anchorBase.id);
      }
      kept.add(anchorBase.id);
      continue;
    }
    const { perEdit, added, removed } = timeGroup(group, lastWord());
    changes.words_added += added;
    changes.words_removed += removed;
    group.edits.forEach((edit, i) => {
      const words = perEdit[i]!;
      if (words.length === 0) return;
      const isAnchor = edit === anchor && anchorBase !== undefined;
      const id = isAnchor ? anchorBase.id : nextId++;
      const inherited = anchorBase?.speaker;
      const speaker = edit.speaker === undefined ? inherited : edit.speaker || undefined;
      out.push(
        withSpeaker(
          {
            id,
            start: words[0]!.start,
            end: Math.max(...words.map((w) => w.end)),
            text: tokenize(edit.text).join(" "),
            words,
          },
          speaker,
        ),
      );
      if (isAnchor) {
        kept.add(id);
        changes.edited_segments.push(id);
      } else changes.added_segments.push(id);
    });
  }
  changes.removed_segments = base.filter((s) => !kept.has(s.id)).map((s) => s.id);
  return { segments: out, nextSegmentId: nextId, changes };
}

/**
 * A segment given to another speaker (or to none): its words go with it, so the words'
 * speakers never contradict their segment's.
 */
function withSpeaker(segment: EditableSegment, speaker: string | undefined): EditableSegment {
  const { speaker: _speaker, ...rest } = segment;
  // Words already right stay the same objects (kept byte for byte, like untouched segments).
  const words = rest.words.map((word) => {
    if (word.speaker === speaker) return word;
    const { speaker: _w, ...plain } = word;
    return speaker ? { ...plain, speaker } : plain;
  });
  return { ...rest, words, ...(speaker ? { speaker } : {}) };
}

/** Whether a save changed nothing (the editor may still send it; no revision is made). */
export function isNoop(changes: ChangeSummary): boolean {
  return (
    changes.edited_segments.length === 0 &&
    changes.added_segments.length === 0 &&
    changes.removed_segments.length === 0 &&
    changes.words_added === 0 &&
    changes.words_removed === 0
  );
}
