/** What every fault and load test prints and is judged by. */
export interface JobCounts {
  submitted: number;
  completed: number;
  failedWithReason: number;
  /** Acknowledged jobs that never reached completed or failed-with-a-reason. */
  lost: number;
  /** Jobs that completed (or failed) more than once: two results, two terminal events, two usage rows. */
  duplicated: number;
}

export function formatCounts(label: string, counts: JobCounts & Record<string, unknown>): string {
  const main = `submitted=${counts.submitted} completed=${counts.completed} failed_with_reason=${counts.failedWithReason} lost=${counts.lost} duplicated=${counts.duplicated}`;
  const rest = Object.entries(counts)
    .filter(([key]) => !["submitted", "completed", "failedWithReason", "lost", "duplicated"].includes(key))
    .map(([key, value]) => `${key}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
    .join(" ");
  return `[${label}] ${main}${rest ? ` ${rest}` : ""}`;
}
