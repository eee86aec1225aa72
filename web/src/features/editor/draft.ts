// The editor's unsaved work (decision 0021): the whole segment list as it will be PUT, the
// revision it started from, and pure operations on it (edit, split, merge, find and
// replace). Undo/redo keep snapshots; localStorage keeps the draft across a reload or a
// network drop until it is saved or discarded.

export interface DraftSegment {
  /** Stable React key; survives splits and merges. */
  key: string;
  /** The server's segment id; absent for a segment made by a split. */
  id?: number;
  text: string;
  speaker?: string;
}

export interface Draft {
  transcriptionId: string;
  baseRevision: number;
  segments: DraftSegment[];
}

let counter = 0;
const newKey = () => `new-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export function draftFrom(transcriptionId: string, revision: number, segments: ReadonlyArray<{ id: number; text: string; speaker?: string | undefined }>): Draft {
  return {
    transcriptionId,
    baseRevision: revision,
    segments: segments.map((s) => ({ key: `s${s.id}`, id: s.id, text: s.text.trim(), ...(s.speaker ? { speaker: s.speaker } : {}) })),
  };
}

export function setText(draft: Draft, key: string, text: string): Draft {
  return { ...draft, segments: draft.segments.map((s) => (s.key === key ? { ...s, text } : s)) };
}

/** Splits a segment at a character offset (the cursor); the second half is a new segment. */
export function splitAt(draft: Draft, key: string, offset: number): Draft {
  const index = draft.segments.findIndex((s) => s.key === key);
  const segment = draft.segments[index];
  if (!segment) return draft;
  const head = segment.text.slice(0, offset).trim();
  const tail = segment.text.slice(offset).trim();
  if (!head || !tail) return draft;
  const segments = [...draft.segments];
  segments.splice(index, 1, { ...segment, text: head }, { key: newKey(), text: tail, ...(segment.speaker ? { speaker: segment.speaker } : {}) });
  return { ...draft, segments };
}

/** Merges a segment with the next one (the next one's text is appended). */
export function mergeWithNext(draft: Draft, key: string): Draft {
  const index = draft.segments.findIndex((s) => s.key === key);
  const segment = draft.segments[index];
  const next = draft.segments[index + 1];
  if (!segment || !next) return draft;
  const segments = [...draft.segments];
  segments.splice(index, 2, { ...segment, text: `${segment.text} ${next.text}`.trim() });
  return { ...draft, segments };
}

/**
 * Gives segments (one, or a selection) to another speaker: one draft change, so one
 * revision when saved. Segments already theirs are left as they are.
 */
export function reassignSpeaker(draft: Draft, keys: ReadonlySet<string>, speaker: string): Draft {
  if (![...keys].some((key) => draft.segments.some((s) => s.key === key && s.speaker !== speaker))) return draft;
  return { ...draft, segments: draft.segments.map((s) => (keys.has(s.key) && s.speaker !== speaker ? { ...s, speaker } : s)) };
}

export interface FindOptions {
  caseSensitive: boolean;
  wholeWord: boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export function findPattern(find: string, options: FindOptions, global = true): RegExp | undefined {
  if (!find) return undefined;
  const body = escapeRegExp(find);
  // Word boundaries that know letters beyond ASCII (é, ß, ж…).
  const source = options.wholeWord ? `(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])` : body;
  return new RegExp(source, `u${global ? "g" : ""}${options.caseSensitive ? "" : "i"}`);
}

export function countMatches(draft: Draft, find: string, options: FindOptions): number {
  const pattern = findPattern(find, options);
  if (!pattern) return 0;
  return draft.segments.reduce((n, s) => n + (s.text.match(pattern)?.length ?? 0), 0);
}

/** Replaces every match (or only the first, from segment `fromKey` on); one draft change, so one revision. */
export function replaceMatches(draft: Draft, find: string, replacement: string, options: FindOptions, only?: "first"): { draft: Draft; replaced: number } {
  const pattern = findPattern(find, options, only !== "first");
  if (!pattern) return { draft, replaced: 0 };
  let replaced = 0;
  const segments = draft.segments.map((s) => {
    if (only === "first" && replaced > 0) return s;
    const matches = s.text.match(findPattern(find, options)!)?.length ?? 0;
    if (matches === 0) return s;
    replaced += only === "first" ? 1 : matches;
    // A function replacement keeps "$&" and friends in the user's text literal.
    return { ...s, text: s.text.replace(pattern, () => replacement) };
  });
  return { draft: { ...draft, segments }, replaced };
}

/** Whether the draft differs from the segments it started from. */
export function isDirty(draft: Draft, original: Draft): boolean {
  if (draft.segments.length !== original.segments.length) return true;
  return draft.segments.some((s, i) => {
    const o = original.segments[i]!;
    return s.id !== o.id || s.text.trim() !== o.text.trim() || s.speaker !== o.speaker;
  });
}

/** What a save sends: PUT /transcriptions/{id}/result. */
export function toSaveBody(draft: Draft) {
  return {
    baseRevision: draft.baseRevision,
    segments: draft.segments.map((s) => ({ ...(s.id !== undefined ? { id: s.id } : {}), text: s.text.trim(), ...(s.speaker !== undefined ? { speaker: s.speaker } : {}) })),
  };
}

// ---- undo / redo -----------------------------------------------------------------------

export interface History {
  past: Draft[];
  present: Draft;
  future: Draft[];
}

const LIMIT = 200;

export function historyOf(draft: Draft): History {
  return { past: [], present: draft, future: [] };
}

export function commit(history: History, next: Draft): History {
  if (next === history.present) return history;
  return { past: [...history.past, history.present].slice(-LIMIT), present: next, future: [] };
}

export function undo(history: History): History {
  const previous = history.past.at(-1);
  if (!previous) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] };
}

export function redo(history: History): History {
  const next = history.future[0];
  if (!next) return history;
  return { past: [...history.past, history.present], present: next, future: history.future.slice(1) };
}

// ---- local storage ----------------------------------------------------------------------

const storageKey = (transcriptionId: string) => `transcribe.editor.draft.${transcriptionId}`;

export function storeDraft(draft: Draft): void {
  try {
    localStorage.setItem(storageKey(draft.transcriptionId), JSON.stringify(draft));
  } catch {
    // Private mode or a full quota: the draft still lives in memory.
  }
}

export function loadDraft(transcriptionId: string): Draft | undefined {
  try {
    const raw = localStorage.getItem(storageKey(transcriptionId));
    if (!raw) return undefined;
    const value = JSON.parse(raw) as Draft;
    if (value.transcriptionId !== transcriptionId || !Array.isArray(value.segments) || typeof value.baseRevision !== "number") return undefined;
    return value;
  } catch {
    return undefined;
  }
}

export function clearDraft(transcriptionId: string): void {
  try {
    localStorage.removeItem(storageKey(transcriptionId));
  } catch {
    // nothing stored
  }
}
