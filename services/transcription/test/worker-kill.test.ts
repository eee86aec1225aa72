import path from "node:path";
import { randomUUID } from "node:crypto";
import { TranscriptionStatus } from "@transcribe/proto/transcription/v1/transcription";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import {
  concatWavs,
  engineUnavailable,
  startWorker,
  synthesize,
  until,
  wordErrorRate,
  workerTestStack,
} from "./helpers.js";

const SENTENCES = [
  "The river rose quickly after three days of heavy rain in the mountains.",
  "Farmers moved their animals to higher ground before the water reached the fields.",
  "The committee met on Tuesday morning to review the budget for the new library.",
  "Several members asked whether the building could open before the end of the summer.",
  "Please remember to switch off the lights when you leave the office tonight.",
];




describe.skipIf(engineUnavailable)("worker killed with SIGKILL in the middle of a job", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  it("completes the job exactly once after another worker takes over the expired lease", { timeout: 600_000 }, async () => {
    const { database, media, api, dir, env } = await workerTestStack(cleanup, "kill", {
      JOB_LEASE_SECONDS: "3",
      TRANSCRIBE_CHUNK_SECONDS: "7",
      TRANSCRIBE_CHUNK_OVERLAP_SECONDS: "2",
      TRANSCRIBE_TIME_FACTOR: "30",
    });

    const clips = [];
    for (const sentence of SENTENCES) clips.push((await synthesize(sentence, { dir })).path);
    const audio = concatWavs(clips, path.join(dir, "kill.wav"));
    const userId = `user-${randomUUID()}`;
    const file = media.addFile({ userId, audioPath: audio.path, duration: audio.duration });
    const created = await api.client.createTranscription({ userId, fileId: file.id, settings: { model: "whisper-tiny.en", language: "en" } });

    const firstOutput: string[] = [];
    const first = startWorker(env, firstOutput);
    cleanup.push(async () => first.kill("SIGKILL"));

    // Mid-job: leased, transcribing, at least one chunk stored, not finished.
    await until(
      "the first chunk",
      async () => {
        const row = await sql<{ n: number }>`select count(*)::int as n from transcription_job_chunks where job_id = ${created.jobId}`.execute(database.db);
        return row.rows[0]!.n >= 1 ? true : undefined;
      },
      240_000,
    );
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const orphaned = await database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", created.jobId).executeTakeFirstOrThrow();
    expect(orphaned.status).toBe("transcribing");
    expect(orphaned.lease_owner).not.toBeNull();
    const storedBefore = await database.db.selectFrom("transcription_job_chunks").select("chunk_index").where("job_id", "=", created.jobId).execute();

    const secondOutput: string[] = [];
    const second = startWorker(env, secondOutput);
    cleanup.push(async () => second.kill("SIGKILL"));
    const done = await until(
      "completion",
      async () => {
        const { transcription } = await api.client.getTranscription({ userId, id: created.transcriptionId });
        return transcription && [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED].includes(transcription.status) ? transcription : undefined;
      },
      300_000,
    );
    second.kill("SIGTERM");
    await new Promise((resolve) => second.once("exit", resolve));

    expect(done.error).toBeUndefined();
    expect(done.status).toBe(TranscriptionStatus.COMPLETED);
    const reference = SENTENCES.join(" ");
    const wer = wordErrorRate(reference, done.result!.text);
    console.log(`[kill] ${storedBefore.length} chunk(s) stored before SIGKILL; WER after takeover ${(wer * 100).toFixed(1)}%`);
    expect(wer).toBeLessThanOrEqual(0.2);

    const job = await database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", created.jobId).executeTakeFirstOrThrow();
    expect(job.status).toBe("completed");
    expect(job.attempts).toBe(2);
    const results = await database.db.selectFrom("transcription_results").select("id").where("transcription_id", "=", created.transcriptionId).execute();
    expect(results).toHaveLength(1);
    const outbox = await sql<{ type: string }>`select type from platform_outbox where key = ${created.jobId} order by seq`.execute(database.db);
    expect(outbox.rows.map((r) => r.type.split(".").pop())).toEqual(["TranscriptionCreated", "TranscriptionStarted", "TranscriptionCompleted"]);
    expect(secondOutput.join("")).toContain("resuming after stored chunks");
  });
});
