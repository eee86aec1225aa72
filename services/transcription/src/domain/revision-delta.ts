import type { EditableSegment } from "./edit-timing.js";

/**
 * A revision stored as the segments that changed over its base (decision 0021, deltas).
 * Pure: no I/O. A two-hour transcript is 1.6 MB of segments; a one-word fix changes one.
 */

export interface SegmentDelta {
  /** Every segment id of the revision, in order (small: a number per segment). */
  ids: number[];
  /** The segments that are new or differ from the base's segment of the same id, whole. */
  segments: EditableSegment[];
}

/**
 * Deltas in a row before a revision is stored whole again: reading any revision reads one
 * snapshot and at most this many small deltas, and one save in this many writes 1.6 MB.
 */
export const MAX_DELTA_CHAIN = 32;

/**
 * The delta from `base` to `next`. `same` says whether two segments of one id are equal;
 * by default identity, which is what applyEdit keeps for a segment it did not touch.
 */
export function deltaOf(
  base: readonly EditableSegment[],
  next: readonly EditableSegment[],
  same: (a: EditableSegment, b: EditableSegment) => boolean = (a, b) => a === b,
): SegmentDelta {
  const before = new Map(base.map((s) => [s.id, s]));
  return {
    ids: next.map((s) => s.id),
    segments: next.filter((s) => {
      const old = before.get(s.id);
      return !old || !same(old, s);
    }),
  };
}

export function applyDelta(base: readonly EditableSegment[], delta: SegmentDelta): EditableSegment[] {
  const byId = new Map(base.map((s) => [s.id, s]));
  for (const s of delta.segments) byId.set(s.id, s);
  return delta.ids.map((id) => {
    const segment = byId.get(id);
    // A delta names only ids its base or itself holds; anything else is a corrupt chain.
    if (!segment) throw new Error(`Revision delta names segment ${id}, which neither it nor its base holds`);
    return segment;
  });
}

/** Structural equality of two stored segments (for deltas computed from parsed rows). */
export function sameSegment(a: EditableSegment, b: EditableSegment): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
