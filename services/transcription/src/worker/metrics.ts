import { defineCounter, defineGauge } from "@transcribe/platform";
import { sql } from "kysely";
import type { Db } from "../db/repository.js";

export const jobsInProgress = defineGauge({
  name: "transcription_jobs_in_progress",
  help: "Jobs this worker process is running now",
});

export const jobsCompleted = defineCounter({
  name: "transcription_jobs_completed_total",
  help: "Jobs this worker process completed",
});

export const jobsFailed = defineCounter({
  name: "transcription_jobs_failed_total",
  help: "Jobs this worker process ended as failed (a permanent error, or every attempt used)",
});

let queueDatabase: Db | undefined;

/**
 * Counted from the job table at scrape time, so it is the install's queue, not this
 * process's: every worker reports the same value (aggregate with max, not sum).
 */
defineGauge({
  name: "transcription_queue_depth",
  help: "Jobs no worker holds: ready (may run now) or delayed (a retry's backoff, waiting for media)",
  labelNames: ["state"],
  async collect() {
    this.reset();
    if (!queueDatabase) return;
    try {
      const { rows } = await sql<{ ready: string; delayed: string }>`
        select count(*) filter (where run_after <= now()) as ready,
               count(*) filter (where run_after > now()) as delayed
        from transcription_jobs
        where status in ('pending', 'processing', 'transcribing')
          and (lease_expires_at is null or lease_expires_at < now())`.execute(queueDatabase);
      this.set({ state: "ready" }, Number(rows[0]?.ready ?? 0));
      this.set({ state: "delayed" }, Number(rows[0]?.delayed ?? 0));
    } catch {
      // A scrape must not fail because the database is briefly away; the series go missing instead.
    }
  },
});

/** The database the queue depth is counted in while a job runner runs (undefined: stop counting). */
export function countQueueIn(db: Db | undefined): void {
  queueDatabase = db;
}
