import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { createServiceClient, decodeEvent, newEvent, toEnvelope, type EventEnvelope } from "@transcribe/platform";
import { TranscriptDeletedSchema, TranscriptRenamedSchema, UserDeletedSchema, FileUploadedSchema } from "@transcribe/proto/events/v1/events";
import { FileStatus, MediaService } from "@transcribe/proto/media/v1/media";
import { Provider, TimestampGranularity, TranscriptionStatus } from "@transcribe/proto/transcription/v1/transcription";
import { describe, expect, it } from "vitest";
import { heartbeat, leaseJob } from "../src/db/repository.js";
import { transcriptionConsumer } from "../src/events/consumer.js";
import { JobRunner } from "../src/worker/job-runner.js";
import {
  engineUnavailable,
  logger,
  startTranscriptionApi,
  synthesize,
  transcriptionApiForFile,
  whisperModelsDir,
  testTranscriber,
  testWorkerOptions,
  wordErrorRate,
} from "./helpers.js";

const SCRIPT = "Please remember to switch off the lights when you leave the office. Small habits can make a large difference over a whole year.";

const stack = transcriptionApiForFile();

async function refusal(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected a refusal");
}

async function outbox(type?: string): Promise<EventEnvelope[]> {
  const rows = await stack.database.db
    .selectFrom("platform_outbox" as never)
    .selectAll()
    .orderBy("seq" as never)
    .execute();
  return (rows as Array<{ id: string; type: string; topic: string; key: string; payload: Uint8Array; occurred_at: Date }>)
    .filter((r) => !type || r.type === type)
    .map((r) => ({ id: r.id, type: r.type, topic: r.topic as EventEnvelope["topic"], key: r.key, payload: r.payload, occurredAt: r.occurred_at }));
}

function runner() {
  return new JobRunner({
    db: stack.database.db,
    media: createServiceClient(MediaService, stack.media.url),
    logger,
    createTranscriber: () =>
      testTranscriber({ beamSize: 1 }),
    options: testWorkerOptions,
  });
}

async function waitForStatus(userId: string, id: string, wanted: TranscriptionStatus[], timeoutMs = 240_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { transcription } = await stack.api.client.getTranscription({ userId, id });
    if (transcription && wanted.includes(transcription.status)) return transcription;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`transcription ${id} did not reach ${wanted.join("/")} in time`);
}

describe("ListModels", () => {
  it("lists cloud models as unavailable with a reason until their keys are set, and says scribe-v1 runs on scribe_v2", async () => {
    const { models } = await stack.api.client.listModels({});
    const byId = new Map(models.map((m) => [m.id, m]));
    expect(byId.get("whisper-large-v3-turbo")).toMatchObject({ provider: Provider.GROQ, available: false });
    expect(byId.get("whisper-large-v3-turbo")!.reason).toContain("GROQ_API_KEY");
    expect(byId.get("scribe-v1")).toMatchObject({ provider: Provider.ELEVENLABS, available: false, name: "ElevenLabs Scribe (runs on scribe_v2)" });
    expect(byId.get("whisper-small")).toMatchObject({ available: false });
    expect(byId.get("whisper-base")!.languages).toContain("auto");
    expect(byId.get("whisper-base")!.languages).toHaveLength(100);
    // What an empty settings.model means, and the OpenAI-compatible API's "whisper-1".
    expect(models.filter((m) => m.isDefault).map((m) => m.id)).toEqual(["whisper-base"]);
    if (!engineUnavailable) {
      expect(byId.get("whisper-base")).toMatchObject({ available: true, translation: true });
      expect(byId.get("whisper-tiny.en")).toMatchObject({ available: true, translation: false, languages: ["auto", "en"] });
    }
  });
});

describe.skipIf(engineUnavailable)("TranscriptionService (real PostgreSQL, media over Connect)", () => {
  const alice = `user-${randomUUID()}`;
  const bob = `user-${randomUUID()}`;
  const settings = (extra: Record<string, unknown> = {}) => ({ model: "whisper-tiny.en", language: "en", ...extra });

  it("refuses with the spec's messages (docs/requirements.md: Validation)", async () => {
    const file = stack.media.addFile({ userId: alice, duration: 5 });
    const cases: Array<[Record<string, unknown>, string, Code]> = [
      [{ model: "whisper-base", language: "" }, "Please select a language", Code.InvalidArgument],
      [{ model: "whisper-base", language: "en", translateToEn: true }, "Cannot translate English to English", Code.InvalidArgument],
      [{ model: "whisper-9000", language: "en" }, "Unknown model: whisper-9000", Code.InvalidArgument],
      [{ model: "whisper-base", language: "en", temperature: 1.5 }, "Temperature must be between 0 and 1", Code.InvalidArgument],
      [{ model: "whisper-large-v3", language: "en" }, "Whisper large-v3 (Groq): Needs a Groq API key (GROQ_API_KEY) on the server", Code.FailedPrecondition],
    ];
    for (const [s, message, code] of cases) {
      const error = await refusal(stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: s }));
      expect([error.rawMessage, error.code]).toEqual([message, code]);
    }
    const missing = await refusal(stack.api.client.createTranscription({ userId: alice, fileId: randomUUID(), settings: settings() }));
    expect([missing.code, missing.rawMessage]).toEqual([Code.NotFound, "File not found"]);
    const notHers = await refusal(stack.api.client.createTranscription({ userId: bob, fileId: file.id, settings: settings() }));
    expect([notHers.code, notHers.rawMessage]).toEqual([Code.NotFound, "File not found"]);
    const uploading = stack.media.addFile({ userId: alice, duration: 5, status: FileStatus.UPLOADING });
    const notProcessed = await refusal(stack.api.client.createTranscription({ userId: alice, fileId: uploading.id, settings: settings() }));
    expect(notProcessed.code).toBe(Code.FailedPrecondition);
    expect(notProcessed.rawMessage).toMatch(/^File is not processed yet/);
    const failed = stack.media.addFile({ userId: alice, duration: 5, status: FileStatus.FAILED });
    expect((await refusal(stack.api.client.createTranscription({ userId: alice, fileId: failed.id, settings: settings() }))).code).toBe(Code.FailedPrecondition);
  });

  it("creates, lists, gets, renames and deletes; another user's id is NOT_FOUND on every RPC", async () => {
    const file = stack.media.addFile({ userId: alice, duration: 12.5, fileName: "Team meeting.wav" });
    const created = await stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: settings() });
    expect(created.jobId).toMatch(/^[0-9a-f-]{36}$/);
    const id = created.transcriptionId;

    const list = await stack.api.client.listTranscriptions({ userId: alice, query: "meeting" });
    expect(list.totalCount).toBe(1);
    expect(list.transcriptions[0]).toMatchObject({ id, displayName: "Team meeting.wav", duration: 12.5, model: "whisper-tiny.en", status: TranscriptionStatus.PENDING });
    expect((await stack.api.client.listTranscriptions({ userId: alice, query: "nothing like it" })).totalCount).toBe(0);
    expect((await stack.api.client.listTranscriptions({ userId: alice, status: TranscriptionStatus.COMPLETED, query: "meeting" })).totalCount).toBe(0);
    expect((await stack.api.client.listTranscriptions({ userId: bob })).totalCount).toBe(0);

    const { transcription } = await stack.api.client.getTranscription({ userId: alice, id });
    expect(transcription).toMatchObject({ id, status: TranscriptionStatus.PENDING, config: { model: "whisper-tiny.en", language: "en" }, audioFile: { fileId: file.id, fileName: "Team meeting.wav" } });
    expect(transcription!.result).toBeUndefined();

    // Another user: NOT_FOUND everywhere, never PERMISSION_DENIED.
    for (const call of [
      () => stack.api.client.getTranscription({ userId: bob, id }),
      () => stack.api.client.renameTranscription({ userId: bob, id, newName: "mine now" }),
      () => stack.api.client.deleteTranscription({ userId: bob, id }),
      () => stack.api.client.retryTranscription({ userId: bob, id }),
    ]) {
      expect((await refusal(call())).code).toBe(Code.NotFound);
    }
    expect((await refusal(stack.api.client.getTranscription({ userId: alice, id: "not-a-uuid" }))).code).toBe(Code.NotFound);

    expect((await refusal(stack.api.client.renameTranscription({ userId: alice, id, newName: "   " }))).rawMessage).toBe("Name cannot be empty");
    expect((await refusal(stack.api.client.renameTranscription({ userId: alice, id, newName: "x".repeat(256) }))).rawMessage).toBe("Name is too long");
    const renamed = await stack.api.client.renameTranscription({ userId: alice, id, newName: "  Weekly sync  " });
    expect(renamed.transcription!.displayName).toBe("Weekly sync");
    const [renamedEvent] = (await outbox(TranscriptRenamedSchema.typeName)).map(decodeEvent);
    expect(renamedEvent).toMatchObject({ transcriptId: id, userId: alice, oldName: "Team meeting.wav", newName: "Weekly sync" });

    expect((await refusal(stack.api.client.retryTranscription({ userId: alice, id }))).code).toBe(Code.FailedPrecondition);

    await stack.api.client.deleteTranscription({ userId: alice, id });
    expect((await refusal(stack.api.client.getTranscription({ userId: alice, id }))).code).toBe(Code.NotFound);
    expect((await refusal(stack.api.client.deleteTranscription({ userId: alice, id }))).code).toBe(Code.NotFound);
    expect((await stack.api.client.listTranscriptions({ userId: alice, query: "sync" })).totalCount).toBe(0);
    const deleted = (await outbox(TranscriptDeletedSchema.typeName)).map(decodeEvent).find((e) => "transcriptId" in e && e.transcriptId === id);
    expect(deleted).toMatchObject({ userId: alice, rawKey: file.rawKey, processedKey: file.processedKey });
    const job = await stack.database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", created.jobId).executeTakeFirstOrThrow();
    expect(job.status).toBe("cancelled");
  });

  it("runs a job on the real engine: pending → transcribing → completed, result with words, events; retry with another model", { timeout: 600_000 }, async () => {
    const speech = await synthesize(SCRIPT);
    const file = stack.media.addFile({ userId: alice, audioPath: speech.path, duration: speech.duration });
    const created = await stack.api.client.createTranscription({
      userId: alice,
      fileId: file.id,
      settings: { ...settings(), timestampGranularities: [TimestampGranularity.SEGMENT, TimestampGranularity.WORD] },
    });
    const worker = runner();
    worker.start();
    try {
      const done = await waitForStatus(alice, created.transcriptionId, [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED]);
      expect(done.error).toBeUndefined();
      expect(done.status).toBe(TranscriptionStatus.COMPLETED);
      const result = done.result!;
      const wer = wordErrorRate(SCRIPT, result.text);
      console.log(`[service] tiny.en job WER ${(wer * 100).toFixed(1)}%: ${result.text}`);
      expect(wer).toBeLessThanOrEqual(0.2);
      expect(result.language).toBe("en");
      expect(result.segments.length).toBeGreaterThan(0);
      expect(result.segments[0]!.words.length).toBeGreaterThan(0);
      for (const [i, s] of result.segments.entries()) {
        expect(s.id).toBe(i);
        expect(s.end).toBeLessThanOrEqual(result.duration + 0.001);
        if (i > 0) expect(s.start).toBeGreaterThanOrEqual(result.segments[i - 1]!.end);
      }
      const types = (await outbox()).filter((e) => e.key === created.jobId).map((e) => e.type.split(".").pop());
      expect(types).toEqual(["TranscriptionCreated", "TranscriptionStarted", "TranscriptionCompleted"]);

      const retried = await stack.api.client.retryTranscription({ userId: alice, id: created.transcriptionId, settings: { model: "whisper-base", language: "auto" } });
      const again = await waitForStatus(alice, created.transcriptionId, [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED]);
      expect(again.status).toBe(TranscriptionStatus.COMPLETED);
      expect(again.config!.model).toBe("whisper-base");
      expect(again.result!.id).not.toBe(result.id);
      expect(again.result!.language).toBe("en");
      // Words only when asked for.
      expect(again.result!.segments[0]!.words).toHaveLength(0);
      const job = await stack.database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", retried.jobId).executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: "completed", attempts: 1 });
    } finally {
      await worker.stop();
    }
  });

  it("refuses to run again a transcription whose file was deleted since, and queues nothing", async () => {
    const file = stack.media.addFile({ userId: alice, duration: 5 });
    const { transcriptionId: id } = await stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: settings() });
    await stack.database.db.updateTable("transcriptions").set({ status: "failed" }).where("id", "=", id).execute();
    const jobs = async () => (await stack.database.db.selectFrom("transcription_jobs").select("id").where("transcription_id", "=", id).execute()).length;
    const before = await jobs();
    stack.media.files.delete(file.id);
    const refused = await refusal(stack.api.client.retryTranscription({ userId: alice, id }));
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.rawMessage).toBe("The audio file no longer exists");
    expect(await jobs()).toBe(before);
    const { transcription } = await stack.api.client.getTranscription({ userId: alice, id });
    expect(transcription!.status).toBe(TranscriptionStatus.FAILED);
  });

  it("ends failed with a readable message when the audio cannot be read, and retries transient errors", { timeout: 300_000 }, async () => {
    const garbage = path.join(tmpdir(), `garbage-${randomUUID()}.wav`);
    await writeFile(garbage, "RIFF....WAVEnot really audio at all");
    const file = stack.media.addFile({ userId: alice, audioPath: garbage, duration: 4 });
    const created = await stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: settings() });
    // A second file whose audio URL is broken until the test "repairs" it: transient.
    const speech = await synthesize("Small habits can make a large difference.");
    const flaky = stack.media.addFile({ userId: alice, duration: speech.duration });
    const second = await stack.api.client.createTranscription({ userId: alice, fileId: flaky.id, settings: settings() });
    const worker = runner();
    worker.start();
    try {
      const failed = await waitForStatus(alice, created.transcriptionId, [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED]);
      expect(failed.status).toBe(TranscriptionStatus.FAILED);
      expect(failed.error).toMatch(/^The audio could not be read: Cannot decode audio/);
      const failedEvents = (await outbox()).filter((e) => e.key === created.jobId).map((e) => e.type.split(".").pop());
      expect(failedEvents).toEqual(["TranscriptionCreated", "TranscriptionStarted", "TranscriptionCompleted", "TranscriptionFailed"]);

      // The stand-in answers 503 while a file has no audio: a transient error, retried
      // with backoff. Repair it after the first failed attempt.
      const deadline = Date.now() + 60_000;
      let job;
      do {
        await new Promise((r) => setTimeout(r, 100));
        job = await stack.database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", second.jobId).executeTakeFirstOrThrow();
      } while (!job.last_error && Date.now() < deadline);
      expect(job.last_error).toBe("The audio could not be fetched (HTTP 503)");
      stack.media.files.get(flaky.id)!.audioPath = speech.path;
      const done = await waitForStatus(alice, second.transcriptionId, [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED]);
      expect([done.status, done.error]).toEqual([TranscriptionStatus.COMPLETED, undefined]);
      const finished = await stack.database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", second.jobId).executeTakeFirstOrThrow();
      expect(finished.attempts).toBeGreaterThanOrEqual(2);
    } finally {
      await worker.stop();
    }
  });

  it("waits in processing while media prepares the file, then transcribes it", { timeout: 300_000 }, async () => {
    const speech = await synthesize("The river rose quickly after three days of heavy rain.");
    const file = stack.media.addFile({ userId: alice, duration: speech.duration, status: FileStatus.PROCESSING });
    const created = await stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: settings() });
    const worker = runner();
    worker.start();
    try {
      const waiting = await waitForStatus(alice, created.transcriptionId, [TranscriptionStatus.PROCESSING], 60_000);
      expect(waiting.status).toBe(TranscriptionStatus.PROCESSING);
      const job = await stack.database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", created.jobId).executeTakeFirstOrThrow();
      expect(job.attempts).toBe(0); // waiting for media costs no attempt
      const stored = stack.media.files.get(file.id)!;
      stored.audioPath = speech.path;
      stored.file.status = FileStatus.READY;
      const done = await waitForStatus(alice, created.transcriptionId, [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED]);
      expect(done.status).toBe(TranscriptionStatus.COMPLETED);
      expect(wordErrorRate("The river rose quickly after three days of heavy rain.", done.result!.text)).toBeLessThanOrEqual(0.2);
    } finally {
      await worker.stop();
    }
  });

  it("says when a job runs on another model than the one asked for (turbo translations, scribe-v1)", async () => {
    const keyed = await startTranscriptionApi(stack.database.db, stack.media.url, whisperModelsDir, { groqKey: "k", elevenLabsKey: "k" });
    try {
      const file = stack.media.addFile({ userId: alice, duration: 5 });
      const turbo = await keyed.client.createTranscription({ userId: alice, fileId: file.id, settings: { model: "whisper-large-v3-turbo", language: "de", translateToEn: true } });
      expect(turbo.message).toBe("whisper-large-v3-turbo cannot translate; this job runs on whisper-large-v3");
      const scribe = await keyed.client.createTranscription({ userId: alice, fileId: file.id, settings: { model: "scribe-v1", language: "en" } });
      expect(scribe.message).toBe("ElevenLabs removed scribe_v1 on 2026-07-09; scribe-v1 runs on scribe_v2");
      const jobs = await stack.database.db.selectFrom("transcription_jobs").select(["id", "engine_model"]).where("id", "in", [turbo.jobId, scribe.jobId]).execute();
      expect(new Map(jobs.map((j) => [j.id, j.engine_model]))).toEqual(new Map([[turbo.jobId, "whisper-large-v3"], [scribe.jobId, "scribe_v2"]]));
      // Not for this test's workers: cancel them.
      for (const c of [turbo, scribe]) await keyed.client.deleteTranscription({ userId: alice, id: c.transcriptionId });
    } finally {
      await keyed.close();
    }
  });

  it("keeps a file's audio while another transcription of it remains", async () => {
    const file = stack.media.addFile({ userId: alice, duration: 5 });
    const one = await stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: settings() });
    const two = await stack.api.client.createTranscription({ userId: alice, fileId: file.id, settings: settings() });
    await stack.api.client.deleteTranscription({ userId: alice, id: one.transcriptionId });
    await stack.api.client.deleteTranscription({ userId: alice, id: two.transcriptionId });
    const events = (await outbox(TranscriptDeletedSchema.typeName)).map(decodeEvent) as Array<{ transcriptId: string; rawKey: string; processedKey: string }>;
    expect(events.find((e) => e.transcriptId === one.transcriptionId)).toMatchObject({ rawKey: "", processedKey: "" });
    expect(events.find((e) => e.transcriptId === two.transcriptionId)).toMatchObject({ rawKey: file.rawKey, processedKey: file.processedKey });
  });

  it("purges a deleted user's data and cancels their running job (UserDeleted)", async () => {
    const carol = `user-${randomUUID()}`;
    const file = stack.media.addFile({ userId: carol, duration: 3 });
    const created = await stack.api.client.createTranscription({ userId: carol, fileId: file.id, settings: settings() });
    const leased = await leaseJob(stack.database.db, "test-worker", 30);
    expect(leased?.id).toBe(created.jobId);
    const handler = transcriptionConsumer(stack.database.db, logger);
    const event = toEnvelope(newEvent(UserDeletedSchema, { userId: carol }));
    await handler(event);
    await handler(event); // redelivery changes nothing
    await handler(toEnvelope(newEvent(FileUploadedSchema, { fileId: file.id, userId: carol, fileName: "x.wav", fileSize: 1n, duration: 3 })));
    expect(await heartbeat(stack.database.db, created.jobId, "test-worker", 30)).toBe(false);
    expect((await stack.api.client.listTranscriptions({ userId: carol })).totalCount).toBe(0);
    expect((await refusal(stack.api.client.getTranscription({ userId: carol, id: created.transcriptionId }))).code).toBe(Code.NotFound);
    const rows = await stack.database.db.selectFrom("transcription_jobs").select("id").where("user_id", "=", carol).execute();
    expect(rows).toHaveLength(0);
  });

  it("the API's JSON reads (items_as_json, result_as_json) match the messages and follow every write, also one made outside this process", async () => {
    const carol = `user-${randomUUID()}`;
    const dave = `user-${randomUUID()}`;
    const ids: string[] = [];
    for (const name of ["Board call.wav", "Budget review.wav"]) {
      const file = stack.media.addFile({ userId: carol, duration: 30, fileName: name });
      ids.push((await stack.api.client.createTranscription({ userId: carol, fileId: file.id, settings: settings() })).transcriptionId);
    }
    const page = async (userId: string, extra: Record<string, unknown> = {}) => {
      const answer = await stack.api.client.listTranscriptions({ userId, limit: 10, itemsAsJson: true, ...extra });
      expect(answer.transcriptions).toEqual([]);
      return { total: answer.totalCount, items: JSON.parse(new TextDecoder().decode(answer.transcriptionsJson)) as Array<Record<string, unknown>> };
    };
    const messages = await stack.api.client.listTranscriptions({ userId: carol, limit: 10 });
    const first = await page(carol);
    expect(first.total).toBe(2);
    expect(first.items).toEqual(
      messages.transcriptions.map((t) => ({ id: t.id, display_name: t.displayName, duration: t.duration, model: t.model, status: "pending", uploaded_at: new Date(Number(t.uploadedAt!.seconds) * 1000 + t.uploadedAt!.nanos / 1e6).toISOString() })),
    );
    expect((await page(carol)).items).toEqual(first.items); // from the cache now
    expect(await page(dave)).toEqual({ total: 0, items: [] }); // another user never sees carol's page
    expect((await page(carol, { query: "budget" })).items.map((t) => t.display_name)).toEqual(["Budget review.wav"]);

    // A rename through the service, then writes another process (a worker, another replica) makes.
    await stack.api.client.renameTranscription({ userId: carol, id: ids[0]!, newName: "Renamed" });
    expect((await page(carol)).items.find((t) => t.id === ids[0])?.display_name).toBe("Renamed");
    await stack.database.db.updateTable("transcriptions").set({ status: "failed", error: "engine crashed" }).where("id", "=", ids[1]!).execute();
    expect((await page(carol)).items.find((t) => t.id === ids[1])?.status).toBe("failed");
    expect((await page(carol, { query: "budget" })).items[0]?.status).toBe("failed");
    await stack.database.db.updateTable("transcriptions").set({ status: "deleted" }).where("id", "=", ids[1]!).execute();
    expect(await page(carol)).toMatchObject({ total: 1, items: [{ id: ids[0] }] });
    await stack.database.db.deleteFrom("transcription_jobs").where("transcription_id", "=", ids[0]!).execute();
    await stack.database.db.deleteFrom("transcriptions").where("id", "=", ids[0]!).execute();
    expect(await page(carol)).toEqual({ total: 0, items: [] });

    // One transcript without a result yet: no result_json, and another user's id is NOT_FOUND.
    const file = stack.media.addFile({ userId: carol, duration: 30, fileName: "Later.wav" });
    const id = (await stack.api.client.createTranscription({ userId: carol, fileId: file.id, settings: settings() })).transcriptionId;
    const detail = await stack.api.client.getTranscription({ userId: carol, id, resultAsJson: true });
    expect(detail.transcription?.resultJson).toHaveLength(0);
    expect(detail.transcription?.result).toBeUndefined();
    expect((await refusal(stack.api.client.getTranscription({ userId: dave, id, resultAsJson: true }))).code).toBe(Code.NotFound);
  });
});
