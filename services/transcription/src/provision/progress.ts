/** One step of preparing the local engine, as the launcher prints it and readiness reports it. */
export interface ProvisionProgress {
  step: "python" | "engine" | "model" | "ready" | "failed";
  /** A line a person reads ("installing Python packages: 12 of 23"). */
  message: string;
  /** Bytes or items done and expected, when known. */
  done?: number;
  total?: number;
}

export type ProgressSink = (progress: ProvisionProgress) => void;

/** A step that cannot succeed without the person doing something; the message says what. */
export class ProvisionError extends Error {
  override readonly name = "ProvisionError";
}

export function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1_000_000)} MB`;
}

/** "1.5 GB" / "484 MB", as a person reads sizes. */
export function sizeText(bytes: number): string {
  return bytes >= 1_000_000_000 ? `${(bytes / 1_000_000_000).toFixed(1)} GB` : megabytes(bytes);
}

/** "38%" of a progress, or undefined when its size is unknown. */
export function percentOf(progress: Pick<ProvisionProgress, "done" | "total">): number | undefined {
  if (!progress.total || progress.done === undefined) return undefined;
  return Math.max(0, Math.min(100, Math.floor((progress.done / progress.total) * 100)));
}
