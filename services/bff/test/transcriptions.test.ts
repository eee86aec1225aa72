import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, createServiceClient, loadConfig, startServiceServer, type ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { startMedia, waitFor, type MediaHarness } from "../../media/test/harness.js";
import { LocalTranscriber } from "../../transcription/src/engines/local/local-transcriber.js";
import { transcriptionServiceImpl } from "../../transcription/src/rpc/transcription-service.js";
import { JobRunner } from "../../transcription/src/worker/job-runner.js";
import { engineUnavailable, migratedDatabase, synthesize, whisperModelsDir, whisperPython, wordErrorRate } from "../../transcription/test/helpers.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

const logger = createLogger("bff-transcriptions-test", "silent");
const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";

/**
 * The dashboard's journey through the BFF: the real auth service (magic-link sessions),
 * the real media service (upload, ffprobe, transcode), the transcription API and worker
 * with the real local Whisper engine on real weights, and speech synthesized here.
 */
describe.skipIf(engineUnavailable)("transcriptions through the BFF", () => {
  let auth: AuthHarness;
  let media: MediaHarness;
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  let transcription: ServiceServer;
  let worker: JobRunner;
  let bff: Awaited<ReturnType<typeof buildBff>>;
  let origin: string;
  let dir: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    const bffPort = await freePort();
    origin = `http://127.0.0.1:${bffPort}`;
    dir = await mkdtemp(path.join(os.tmpdir(), "bff-transcriptions-"));
    [auth, media, database] = await Promise.all([
      startAuth(),
      startMedia({ env: { STORAGE_PUBLIC_URL: `${origin}/api/v1/storage` } }),
      migratedDatabase(),
    ]);
    const mediaClient = createServiceClient(MediaService, media.url);
    transcription = await startServiceServer({
      name: "transcription",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(
          TranscriptionService,
          transcriptionServiceImpl({
            db: database.db,
            media: mediaClient,
            catalog: { locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: path.join(dir, "models"), allowDownload: false }, engines: new Set(["local"]) },
            maxAttempts: 3,
            logger,
          }),
        ),
    });
    worker = new JobRunner({
      db: database.db,
      media: mediaClient,
      logger,
      createTranscriber: () =>
        new LocalTranscriber({
          python: whisperPython,
          locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: path.join(dir, "models"), allowDownload: false },
          computeType: "int8",
          threads: 2,
          beamSize: 1,
          chunkSeconds: 300,
          overlapSeconds: 5,
          chunkTimeFactor: 20,
          logger,
        }),
      options: { leaseSeconds: 10, pollMs: 200, retryBaseMs: 500, mediaWaitMaxSeconds: 300, timeFactor: 20, concurrency: 1 },
    });
    worker.start();
    bff = await buildBff(
      loadConfig(bffConfigSchema, {
        WEB_DIST_DIR: "/nonexistent",
        AUTH_URL: auth.server.url,
        MEDIA_URL: media.url,
        TRANSCRIPTION_URL: transcription.url,
      }),
      logger,
    );
    await bff.listen({ host: "127.0.0.1", port: bffPort });
    alice = (await signInWithMagicLink(auth, "alice-transcripts@example.com")).cookieHeader();
    bob = (await signInWithMagicLink(auth, "bob-transcripts@example.com")).cookieHeader();
  }, 180_000);

  afterAll(async () => {
    await bff?.close();
    await worker?.stop();
    await transcription?.close();
    await media?.stop();
    await auth?.close();
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const api = (cookie: string | undefined, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { ...headers, ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  async function upload(cookie: string, file: string, duration: number): Promise<string> {
    const size = (await stat(file)).size;
    const started = await api(cookie, "POST", "/api/v1/upload", { file_name: "speech.wav", file_size: size, content_type: "audio/wav", duration });
    expect(started.status).toBe(200);
    const { upload_url, file_id } = (await started.json()) as { upload_url: string; file_id: string };
    const put = await fetch(upload_url, { method: "PUT", body: await readFile(file), headers: { "content-type": "audio/wav" } });
    expect(put.status).toBe(200);
    return file_id;
  }

  it("lists the models, refuses bad settings with the spec's messages, transcribes, renames, deletes; others get 404", { timeout: 600_000 }, async () => {
    const models = (await (await api(alice, "GET", "/api/v1/models")).json()) as { models: Array<{ id: string; available: boolean; reason?: string }> };
    expect(models.models.find((m) => m.id === "whisper-tiny.en")).toMatchObject({ available: true });
    expect(models.models.find((m) => m.id === "scribe-v1")).toMatchObject({ available: false });
    expect((await api(undefined, "GET", "/api/v1/transcriptions")).status).toBe(401);

    const speech = await synthesize(SCRIPT, { dir });
    const fileId = await upload(alice, speech.path, speech.duration);

    const noLanguage = await api(alice, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-base", language: "" } });
    expect(noLanguage.status).toBe(400);
    expect(((await noLanguage.json()) as { error: { message: string } }).error.message).toBe("Please select a language");
    const enToEn = await api(alice, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-base", language: "en", translate_to_en: true } });
    expect(((await enToEn.json()) as { error: { message: string } }).error.message).toBe("Cannot translate English to English");
    expect((await api(bob, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-tiny.en", language: "en" } })).status).toBe(404);

    // The file may still be processing: the job waits for media (status processing) and then runs.
    const started = await api(alice, "POST", "/api/v1/transcriptions", {
      file_id: fileId,
      settings: { model: "whisper-tiny.en", language: "en", timestamp_granularities: ["segment", "word"] },
    });
    expect(started.status).toBe(200);
    const { job_id, transcription_id: id } = (await started.json()) as { job_id: string; transcription_id: string };
    expect(job_id).toBeTruthy();

    // Cheap polling: the same list answers 304 to its own ETag until something changes.
    const first = await api(alice, "GET", "/api/v1/transcriptions?limit=10");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\//);
    const seen = new Set<string>();
    const done = await waitFor(async () => {
      const response = await api(alice, "GET", "/api/v1/transcriptions?limit=10", undefined, { "if-none-match": etag });
      if (response.status === 304) return undefined;
      const list = (await response.json()) as { transcriptions: Array<{ id: string; status: string }>; total_count: number };
      const item = list.transcriptions.find((t) => t.id === id)!;
      seen.add(item.status);
      return item.status === "completed" || item.status === "failed" ? item : undefined;
    }, "the transcription to finish", 400_000);
    expect(done.status).toBe("completed");

    const detail = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as {
      status: string;
      result: { text: string; language: string; duration: number; segments: Array<{ start: number; end: number; words?: unknown[] }> };
      audio_file: { file_name: string };
    };
    const wer = wordErrorRate(SCRIPT, detail.result.text);
    console.log(`[bff] journey WER ${(wer * 100).toFixed(1)}%: ${detail.result.text}`);
    expect(wer).toBeLessThanOrEqual(0.2);
    expect(detail.audio_file.file_name).toBe("speech.wav");
    expect(detail.result.segments[0]!.words!.length).toBeGreaterThan(0);
    for (const s of detail.result.segments) expect(s.end).toBeLessThanOrEqual(detail.result.duration + 0.001);

    const audio = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}/audio-url`)).json()) as { url: string };
    expect((await fetch(audio.url, { headers: { range: "bytes=0-3" } })).status).toBe(206);

    const renamed = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "  Library budget  " });
    expect(((await renamed.json()) as { display_name: string }).display_name).toBe("Library budget");
    const tooLong = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "x".repeat(256) });
    expect(((await tooLong.json()) as { error: { message: string } }).error.message).toBe("Name is too long");
    const found = (await (await api(alice, "GET", "/api/v1/transcriptions?q=budget")).json()) as { total_count: number };
    expect(found.total_count).toBe(1);

    for (const [method, url, body] of [
      ["GET", `/api/v1/transcriptions/${id}`, undefined],
      ["GET", `/api/v1/transcriptions/${id}/audio-url`, undefined],
      ["PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "mine" }],
      ["POST", `/api/v1/transcriptions/${id}/retry`, {}],
      ["DELETE", `/api/v1/transcriptions/${id}`, undefined],
    ] as const) {
      const response = await api(bob, method, url, body);
      expect(response.status, `${method} ${url}`).toBe(404);
    }

    expect((await api(alice, "DELETE", `/api/v1/transcriptions/${id}`)).status).toBe(204);
    expect((await api(alice, "GET", `/api/v1/transcriptions/${id}`)).status).toBe(404);
  });
});
