import type { EditableSegment } from "../domain/edit-timing.js";

/**
 * The segments of the revisions last read or saved, per transcript, in this process. A
 * revision number never changes what it holds (numbers are not reused), so a hit is
 * always right, on any replica; it saves reading and parsing megabytes on each save of an
 * editor that saves again and again. Bounded by words held, least recently used first out.
 */
const MAX_WORDS = 200_000;

const entries = new Map<string, { number: number; segments: EditableSegment[]; words: number }>();
let held = 0;

export function cachedSegments(transcriptionId: string, number: number): EditableSegment[] | undefined {
  const entry = entries.get(transcriptionId);
  if (!entry || entry.number !== number) return undefined;
  entries.delete(transcriptionId);
  entries.set(transcriptionId, entry);
  return entry.segments;
}

/** Only for committed revisions: a rolled-back number may be taken again with other segments. */
export function rememberSegments(transcriptionId: string, number: number, segments: EditableSegment[]): void {
  forget(transcriptionId);
  const words = segments.reduce((n, s) => n + s.words.length + 1, 0);
  if (words > MAX_WORDS) return;
  entries.set(transcriptionId, { number, segments, words });
  held += words;
  for (const [id, entry] of entries) {
    if (held <= MAX_WORDS) break;
    entries.delete(id);
    held -= entry.words;
  }
}

export function forget(transcriptionId: string): void {
  const entry = entries.get(transcriptionId);
  if (!entry) return;
  entries.delete(transcriptionId);
  held -= entry.words;
}
