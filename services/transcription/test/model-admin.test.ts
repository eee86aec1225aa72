import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Model } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalTranscriber } from "../src/engines/local/local-transcriber.js";
import { isModelDir } from "../src/engines/local/models.js";
import { fakeModel, startHub } from "./hub-server.js";
import { engineUnavailable, logger, migratedDatabase, startMediaServer, startTranscriptionApi, whisperPython } from "./helpers.js";

/**
 * Models on demand through the service's RPCs (decision 0033): the catalog's honest
 * availability, an administrator's download from a local server speaking the model hub's
 * API (HF_ENDPOINT), a job accepted for a model not downloaded yet, and removal rules.
 */
describe.skipIf(engineUnavailable)("models on demand: catalog, download and removal over the RPCs", () => {
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let api: Awaited<ReturnType<typeof startTranscriptionApi>>;
  let hub: Awaited<ReturnType<typeof startHub>>;
  let dataModelsDir: string;
  const previousEndpoint = process.env.HF_ENDPOINT;

  beforeAll(async () => {
    database = await migratedDatabase();
    media = await startMediaServer();
    hub = await startHub(fakeModel(3_000_000), { repo: "Systran/faster-whisper-medium" });
    // The download's Python child inherits the endpoint: only the local server is reached.
    process.env.HF_ENDPOINT = hub.url;
    dataModelsDir = path.join(await mkdtemp(path.join(tmpdir(), "transcribe-data-")), "models");
    api = await startTranscriptionApi(database.db, media.url, undefined, {}, { dataModelsDir, allowDownload: true, memoryBytes: 4_000_000_000 });
  });

  afterAll(async () => {
    if (previousEndpoint === undefined) delete process.env.HF_ENDPOINT;
    else process.env.HF_ENDPOINT = previousEndpoint;
    await api?.close();
    await hub?.close();
    await media?.close();
    await database?.close();
  });

  const model = async (id: string): Promise<Model> => (await api.client.listModels({})).models.find((m) => m.id === id)!;
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return ConnectError.from(error);
    }
    throw new Error("expected a refusal");
  };

  it("lists every local model with size, memory, languages, translation and presence, and says why one cannot be had", async () => {
    const { models } = await api.client.listModels({});
    const local = models.filter((m) => m.downloadBytes !== undefined).map((m) => m.id);
    expect(local).toEqual(
      expect.arrayContaining([
        "whisper-tiny", "whisper-tiny.en", "whisper-base", "whisper-base.en", "whisper-small", "whisper-small.en",
        "whisper-medium", "whisper-large-v3-local", "whisper-large-v3-turbo-local", "whisper-distil-large-v3",
      ]),
    );
    expect(await model("whisper-tiny.en")).toMatchObject({ present: true, available: true, translation: false, languages: ["auto", "en"] });
    expect(await model("whisper-medium")).toMatchObject({
      present: false,
      available: false,
      preparing: true,
      downloadBytes: 1_530_000_000n,
      ramBytes: 3_000_000_000n,
      translation: true,
      reason: "Not downloaded yet (1.5 GB); it downloads when first used or an administrator can download it now",
    });
    expect(await model("whisper-large-v3-turbo-local")).toMatchObject({ translation: false });
    expect(await model("whisper-distil-large-v3")).toMatchObject({ translation: false, languages: ["auto", "en"] });
    // 4 GB of memory here: large-v3 cannot run, and a job for it is refused with that reason.
    expect(await model("whisper-large-v3-local")).toMatchObject({
      available: false,
      preparing: false,
      reason: "Needs about 5.0 GB of memory; this server has 4.0 GB",
    });
    const file = media.addFile({ userId: "u-1", duration: 5 });
    const tooBig = await refusal(api.client.createTranscription({ userId: "u-1", fileId: file.id, settings: { model: "whisper-large-v3-local", language: "en" } }));
    expect(tooBig.code).toBe(Code.FailedPrecondition);
    expect(await refusal(api.client.downloadModel({ modelId: "whisper-large-v3-local" }))).toMatchObject({ code: Code.FailedPrecondition });
  });

  it("refuses unknown ids, cloud models and the default model", async () => {
    expect((await refusal(api.client.downloadModel({ modelId: "whisper-9000" }))).code).toBe(Code.NotFound);
    expect((await refusal(api.client.removeModel({ modelId: "whisper-9000" }))).code).toBe(Code.NotFound);
    expect((await refusal(api.client.downloadModel({ modelId: "whisper-large-v3-turbo" }))).code).toBe(Code.FailedPrecondition);
    expect((await refusal(api.client.removeModel({ modelId: "scribe-v1" }))).code).toBe(Code.FailedPrecondition);
    const base = await refusal(api.client.removeModel({ modelId: "whisper-base" }));
    expect([base.code, base.rawMessage]).toEqual([Code.FailedPrecondition, "whisper-base is the default model; it cannot be removed"]);
  });

  it("accepts a job for a model not downloaded yet, downloads it for an administrator with progress, and removes it once no job needs it", { timeout: 120_000 }, async () => {
    const user = `user-${randomUUID()}`;
    const file = media.addFile({ userId: user, duration: 5 });
    const created = await api.client.createTranscription({ userId: user, fileId: file.id, settings: { model: "whisper-medium", language: "en" } });
    expect(created.transcriptionId).toBeTruthy();
    // What the worker writes while it fetches the model is what the user reads, while the job is live.
    await database.db.updateTable("transcriptions").set({ progress: "Downloading Whisper medium: 120 MB of 1.5 GB" }).where("id", "=", created.transcriptionId).execute();
    const waiting = await api.client.getTranscription({ userId: user, id: created.transcriptionId });
    expect(waiting.transcription).toMatchObject({ progress: "Downloading Whisper medium: 120 MB of 1.5 GB" });

    const started = await api.client.downloadModel({ modelId: "whisper-medium" });
    expect(started.model).toMatchObject({ id: "whisper-medium", present: false, preparing: true });
    expect(started.model!.downloadDoneBytes).toBeDefined();
    // A second request joins the first: the hub sees one download of model.bin.
    await api.client.downloadModel({ modelId: "whisper-medium" });
    const deadline = Date.now() + 60_000;
    while (!(await model("whisper-medium")).present && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await model("whisper-medium")).toMatchObject({ present: true, available: true });
    expect(isModelDir(path.join(dataModelsDir, "medium"))).toBe(true);
    expect(hub.requests.filter((r) => r.startsWith("GET ") && r.endsWith("/model.bin"))).toHaveLength(1);

    // The job waiting for it holds it.
    const busy = await refusal(api.client.removeModel({ modelId: "whisper-medium" }));
    expect([busy.code, busy.rawMessage]).toEqual([Code.FailedPrecondition, "whisper-medium is in use by 1 transcription job(s); remove it when they have finished"]);
    await database.db.updateTable("transcription_jobs").set({ status: "failed" }).where("engine_model", "=", "medium").execute();

    const removed = await api.client.removeModel({ modelId: "whisper-medium" });
    expect(removed).toMatchObject({ removed: true, model: { present: false, preparing: true } });
    expect(existsSync(path.join(dataModelsDir, "medium"))).toBe(false);
    expect(await readdir(dataModelsDir)).toEqual([]);
    expect((await api.client.removeModel({ modelId: "whisper-medium" })).removed).toBe(false);
  });

  it("a worker fetching the model a job needs reports the download as the job's progress", { timeout: 120_000 }, async () => {
    const workerModels = path.join(await mkdtemp(path.join(tmpdir(), "transcribe-worker-")), "models");
    const transcriber = new LocalTranscriber({
      python: whisperPython,
      locations: { explicit: {}, dataModelsDir: workerModels, allowDownload: true },
      computeType: "int8",
      threads: 1,
      beamSize: 1,
      chunkSeconds: 300,
      overlapSeconds: 5,
      chunkTimeFactor: 20,
      logger,
    });
    const messages: Array<string | undefined> = [];
    const dir = await transcriber.modelDir("medium", undefined, (message) => messages.push(message));
    expect(dir).toBe(path.join(workerModels, "medium"));
    expect(messages[0]).toBe("Downloading Whisper medium");
    expect(messages).toContain("Downloading Whisper medium: 3 MB of 3 MB");
    expect(messages.every((m) => m === undefined || m.startsWith("Downloading Whisper medium"))).toBe(true);
  });
});
