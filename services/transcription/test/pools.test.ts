import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertJob, leaseJob } from "../src/db/repository.js";
import { chooseBatchSize, useBatched } from "../src/domain/decoding.js";
import { poolFor } from "../src/domain/pools.js";
import type { JobSettings } from "../src/domain/settings.js";
import { engineUnavailable, exitOf, migratedDatabase, startWorker } from "./helpers.js";

/** Worker pools and the GPU worker's device option (decision 0026). */

const GIB = 1024 ** 3;

describe("job routing to worker pools", () => {
  it("sends the local engine's large models to the GPU pool and everything else to the CPU pool", () => {
    for (const model of ["large-v3", "large-v3-turbo", "distil-large-v3", "medium"]) {
      expect(poolFor({ provider: "local", engineModel: model }), model).toBe("gpu");
    }
    for (const model of ["tiny.en", "base", "small", "small.en"]) expect(poolFor({ provider: "local", engineModel: model }), model).toBe("cpu");
    // Groq runs large-v3 on its own hardware; a speaker-only job needs no Whisper at all.
    expect(poolFor({ provider: "groq", engineModel: "whisper-large-v3" })).toBe("cpu");
    expect(poolFor({ provider: "local", engineModel: "large-v3", kind: "diarize" })).toBe("cpu");
  });

  describe("leasing by pool (PostgreSQL)", () => {
    let database: Awaited<ReturnType<typeof migratedDatabase>>;
    beforeAll(async () => {
      database = await migratedDatabase();
    }, 120_000);
    afterAll(async () => {
      await database?.close();
    });

    async function job(provider: JobSettings["provider"], engineModel: string): Promise<string> {
      const transcriptionId = randomUUID();
      const jobId = randomUUID();
      const settings = { provider, model: engineModel, responseFormat: "json", timestampGranularities: [], temperature: 0, language: "auto", translateToEn: false } satisfies JobSettings;
      await database.db.transaction().execute(async (trx) => {
        await trx
          .insertInto("transcriptions")
          .values({
            id: transcriptionId,
            user_id: "u",
            file_id: randomUUID(),
            display_name: "a.wav",
            file_name: "a.wav",
            content_type: null,
            duration: 5,
            uploaded_at: new Date(),
            raw_key: "raw",
            processed_key: null,
            status: "pending",
            error: null,
            current_job_id: jobId,
            settings: JSON.stringify(settings) as unknown as JobSettings,
            result_id: null,
            deleted_at: null,
          })
          .execute();
        await insertJob(trx, { id: jobId, transcriptionId, userId: "u", settings, engineModel, maxAttempts: 4 });
      });
      return jobId;
    }

    it("stores the pool at creation; a pool's worker leases only its jobs, a worker without one leases any", async () => {
      const large = await job("local", "large-v3-turbo");
      const base = await job("local", "base");
      const groq = await job("groq", "whisper-large-v3");
      const stored = await database.db.selectFrom("transcription_jobs").select(["id", "pool"]).execute();
      expect(new Map(stored.map((r) => [r.id, r.pool]))).toEqual(new Map([[large, "gpu"], [base, "cpu"], [groq, "cpu"]]));

      expect((await leaseJob(database.db, "gpu-1", 30, "gpu"))?.id).toBe(large);
      expect(await leaseJob(database.db, "gpu-1", 30, "gpu")).toBeUndefined();
      const cpu = [await leaseJob(database.db, "cpu-1", 30, "cpu"), await leaseJob(database.db, "cpu-1", 30, "cpu")].map((j) => j?.id);
      expect(cpu.sort()).toEqual([base, groq].sort());
      expect(await leaseJob(database.db, "cpu-1", 30, "cpu")).toBeUndefined();

      const another = await job("local", "medium");
      expect((await leaseJob(database.db, "laptop", 30))?.id).toBe(another);
    });
  });
});

describe("batch size", () => {
  it("grows with the threads up to 16 and never takes more than half the free memory", () => {
    expect(chooseBatchSize("base", { device: "cpu", threads: 2, freeMemoryBytes: 20 * GIB })).toBe(8);
    expect(chooseBatchSize("base", { device: "cpu", threads: 1, freeMemoryBytes: 20 * GIB })).toBe(4);
    expect(chooseBatchSize("base", { device: "cpu", threads: 32, freeMemoryBytes: 20 * GIB })).toBe(16);
    // 1 GiB free, 600 MiB an item for large-v3: half of it holds no full item, still 1.
    expect(chooseBatchSize("large-v3", { device: "cpu", threads: 8, freeMemoryBytes: 1 * GIB })).toBe(1);
    expect(chooseBatchSize("small", { device: "cpu", threads: 8, freeMemoryBytes: 2 * GIB })).toBe(6);
    expect(chooseBatchSize("large-v3-turbo", { device: "cuda", threads: 4, freeMemoryBytes: 80 * GIB })).toBe(16);
  });

  it("is used only when on and for files at least the threshold long", () => {
    expect(useBatched(600, 8, 240)).toBe(true);
    expect(useBatched(239, 8, 240)).toBe(false);
    expect(useBatched(3600, 0, 240)).toBe(false);
  });
});

describe.skipIf(engineUnavailable)("WHISPER_DEVICE=cuda on a machine without a usable GPU", () => {
  it("refuses to start: the real worker exits 1 naming the reason, before touching the database", { timeout: 120_000 }, async () => {
    const output: string[] = [];
    // No DATABASE_URL reachable on purpose: the refusal must come first.
    const worker = startWorker({ WHISPER_DEVICE: "cuda", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", CUDA_VISIBLE_DEVICES: "" }, output);
    expect(await exitOf(worker)).toBe(1);
    expect(output.join("")).toContain("transcription-worker: WHISPER_DEVICE=cuda, but the GPU cannot be used: No CUDA GPU is visible to CTranslate2");
  });

  it("refuses a device it does not know (cpu or cuda)", { timeout: 60_000 }, async () => {
    const output: string[] = [];
    const worker = startWorker({ WHISPER_DEVICE: "tpu", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, output);
    expect(await exitOf(worker)).toBe(1);
    expect(output.join("")).toContain("WHISPER_DEVICE");
  });
});
