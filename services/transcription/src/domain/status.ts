/**
 * Transcription status (docs/requirements.md "States"). A job moves only forward:
 *   pending → processing (media still preparing the audio) → transcribing → completed | failed
 * Any step may be skipped (a file already processed goes pending → transcribing; a job
 * may fail from any live state). `deleted` is a soft delete reachable from every other
 * state and final. A transcription's status is its latest job's; a retry starts a new
 * job at `pending` (see canRetry), it never moves an old job backwards.
 */
export const statuses = ["pending", "processing", "transcribing", "completed", "failed", "deleted"] as const;
export type Status = (typeof statuses)[number];
/** A job still under way: the states a cancel, a model removal or a progress note look for. */
export const activeStatuses = ["pending", "processing", "transcribing"] as const satisfies readonly Status[];

const rank: Record<Exclude<Status, "deleted">, number> = {
  pending: 0,
  processing: 1,
  transcribing: 2,
  completed: 3,
  failed: 3,
};

export function isFinal(status: Status): boolean {
  return status === "completed" || status === "failed" || status === "deleted";
}

export function canTransition(from: Status, to: Status): boolean {
  if (from === "deleted") return false;
  if (to === "deleted") return true;
  if (isFinal(from)) return false;
  return rank[to] > rank[from];
}

/** The states a transition to `to` may start from, for guarded SQL updates. */
export function predecessorsOf(to: Status): Status[] {
  return statuses.filter((from) => canTransition(from, to));
}

/** A new job may start only once the previous one has ended. */
export function canRetry(status: Status): boolean {
  return status === "completed" || status === "failed";
}

export function isStatus(value: string): value is Status {
  return (statuses as readonly string[]).includes(value);
}
