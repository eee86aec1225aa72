import { randomUUID } from "node:crypto";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import {
  concatWavs,
  engineUnavailable,
  exitOf,
  startWorker,
  synthesize,
  until,
  workerTestStack,
} from "./helpers.js";

// What a Kubernetes scale-in or rollout does to a worker: SIGTERM, then SIGKILL after the
// pod's grace period. The chart sets WORKER_DRAIN_SECONDS and SHUTDOWN_GRACE_MS from
// services.transcription-worker.drainSeconds.

const SENTENCES = [
  "The river rose quickly after three days of heavy rain in the mountains.",
  "Farmers moved their animals to higher ground before the water reached the fields.",
  "The committee met on Tuesday morning to review the budget for the new library.",
];





describe("transcription-worker configuration", () => {
  it("refuses a drain that does not end before its shutdown deadline, naming both variables", async () => {
    const output: string[] = [];
    const child = startWorker({ WORKER_DRAIN_SECONDS: "30", SHUTDOWN_GRACE_MS: "20000", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, output);
    expect(await exitOf(child)).toBe(1);
    const message = output.join("");
    expect(message).toContain("transcription-worker: Invalid configuration:");
    expect(message).toContain(
      "WORKER_DRAIN_SECONDS: must be shorter than SHUTDOWN_GRACE_MS (20000 ms), which must leave time to hand unfinished jobs back",
    );
  });
});

describe.skipIf(engineUnavailable)("transcription-worker stopped with SIGTERM in the middle of a job", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  async function setup() {
    const { database, media, api, dir, env } = await workerTestStack(cleanup, "drain", {
      JOB_LEASE_SECONDS: "5",
      TRANSCRIBE_CHUNK_SECONDS: "7",
      TRANSCRIBE_CHUNK_OVERLAP_SECONDS: "2",
      TRANSCRIBE_TIME_FACTOR: "30",
    });
    const clips = [];
    for (const sentence of SENTENCES) clips.push((await synthesize(sentence, { dir })).path);
    const audio = concatWavs(clips, path.join(dir, "drain.wav"));
    const userId = `user-${randomUUID()}`;
    const createJob = async () => {
      const file = media.addFile({ userId, audioPath: audio.path, duration: audio.duration });
      return api.client.createTranscription({ userId, fileId: file.id, settings: { model: "whisper-tiny.en", language: "en" } });
    };
    const job = (id: string) => database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const chunks = async (id: string) =>
      (await sql<{ n: number }>`select count(*)::int as n from transcription_job_chunks where job_id = ${id}`.execute(database.db)).rows[0]!.n;
    return { database, env, createJob, job, chunks };
  }

  it("finishes the running job within the drain, takes no new one, and exits 0", { timeout: 600_000 }, async () => {
    const { env, createJob, job, chunks } = await setup();
    const running = await createJob();
    const waiting = await createJob();
    const output: string[] = [];
    const worker = startWorker({ ...env, WORKER_DRAIN_SECONDS: "240", SHUTDOWN_GRACE_MS: "260000" }, output);
    cleanup.push(async () => worker.kill("SIGKILL"));

    await until("the first chunk", async () => ((await chunks(running.jobId)) >= 1 ? true : undefined), 240_000);
    expect((await job(running.jobId)).status).toBe("transcribing");
    const stoppedAt = Date.now();
    worker.kill("SIGTERM");
    expect(await exitOf(worker)).toBe(0);
    console.log(`[drain] the worker finished its job ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s after SIGTERM`);

    // Done by the worker that held it, in its first attempt: nothing moved to another worker.
    expect(await job(running.jobId)).toMatchObject({ status: "completed", attempts: 1 });
    // The job queued behind it was never leased: the next worker takes it whole.
    expect(await job(waiting.jobId)).toMatchObject({ status: "pending", attempts: 0, lease_owner: null });
    const log = output.join("");
    expect(log).toContain("worker stopping: no new jobs; running jobs may finish");
    expect(log).toContain("transcription completed");
    expect(log).not.toContain("job released");
  });

  it("without drain time, hands the running job back at once, its chunks kept, and exits 0", { timeout: 600_000 }, async () => {
    const { env, createJob, job, chunks } = await setup();
    const running = await createJob();
    const output: string[] = [];
    const worker = startWorker({ ...env, WORKER_DRAIN_SECONDS: "0" }, output);
    cleanup.push(async () => worker.kill("SIGKILL"));

    await until("the first chunk", async () => ((await chunks(running.jobId)) >= 1 ? true : undefined), 240_000);
    const stored = await chunks(running.jobId);
    const stoppedAt = Date.now();
    worker.kill("SIGTERM");
    expect(await exitOf(worker)).toBe(0);
    // Well inside the default 10 s SHUTDOWN_GRACE_MS, on a loaded machine too.
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);

    // Released, not failed: no lease, the attempt refunded, runnable now, chunks kept for the next worker.
    const released = await job(running.jobId);
    expect(released).toMatchObject({ status: "transcribing", attempts: 0, lease_owner: null, lease_expires_at: null });
    expect(released.run_after.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await chunks(running.jobId)).toBeGreaterThanOrEqual(stored);
    expect(output.join("")).toContain("worker stopping; job released");
  });
});
