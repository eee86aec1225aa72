import { mediaToolsEnv } from "@transcribe/media/testing/tools";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Provider, ProviderSchema } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { availabilityOf } from "../src/catalog.js";
import { providerSettings, transcriptionConfig, workerConfig } from "../src/config.js";
import { chooseBatchSize } from "../src/domain/decoding.js";
import { cloudProviderNames, hubRepositoryOf, modelCatalog, providerNames, providerOf, providers } from "../src/domain/models.js";
import { poolFor } from "../src/domain/pools.js";
import { cloudAdapters } from "../src/engines/adapters.js";
import { hubRepo } from "../src/engines/local/models.js";
import { providerFromProto, providerToProto } from "../src/domain/settings.js";
import { engineUnavailable, synthesize } from "./helpers.js";
import { providerStandIns, type ProviderServer } from "./providers.js";

// The cloud adapters cut windows with FFMPEG_PATH, as the launcher hands the worker media's choice
// (the npm package's ffmpeg on a machine without a system one).
Object.assign(process.env, mediaToolsEnv);

/**
 * The provider and model registry (domain/models.ts, decision 0036) and every part a
 * provider or a model needs elsewhere: a half-added one fails here. The recipe is
 * docs/extending.md, "Adding a speech provider".
 */

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const protoProviders = ProviderSchema.values.filter((v) => v.number !== 0).map((v) => ({ name: v.localName.toLowerCase(), value: v.number as Provider }));
const locations = { explicit: {}, dataModelsDir: "/nonexistent", allowDownload: false };

describe("the provider registry", () => {
  it("has exactly the proto enum's providers, each mapped both ways", () => {
    expect(providerNames.length).toBeGreaterThanOrEqual(3);
    expect([...providerNames].sort()).toEqual(protoProviders.map((p) => p.name).sort());
    for (const { name, value } of protoProviders) {
      expect(providerFromProto(value), name).toBe(name);
      expect(providerToProto(name as (typeof providerNames)[number]), name).toBe(value);
    }
    expect(providerFromProto(Provider.UNSPECIFIED)).toBeUndefined();
  });

  for (const name of cloudProviderNames) {
    describe(name, () => {
      const provider = providerOf(name);
      const keyVariable = provider.keyVariable!;
      const baseUrlVariable = provider.baseUrlVariable!;

      it("has its key and address variables in the API's and the worker's configuration", () => {
        expect(keyVariable).toMatch(/^[A-Z][A-Z0-9_]*_API_KEY$/);
        expect(baseUrlVariable).toMatch(/^[A-Z][A-Z0-9_]*_BASE_URL$/);
        for (const schema of [transcriptionConfig, workerConfig]) {
          expect(Object.keys(schema.shape)).toContain(keyVariable);
          expect(Object.keys(schema.shape)).toContain(baseUrlVariable);
        }
        const config = transcriptionConfig.parse({ [keyVariable]: "key-1", [baseUrlVariable]: "http://127.0.0.1:9/" });
        expect(providerSettings(config)[name]).toEqual({ apiKey: "key-1", baseURL: "http://127.0.0.1:9/" });
        expect(providerSettings(transcriptionConfig.parse({}))[name]).toEqual({ apiKey: undefined, baseURL: undefined });
      });

      it("has an adapter, named for the provider", async () => {
        const adapter = cloudAdapters[name]({ apiKey: "key-1" });
        expect(adapter.name).toBe(name);
        await adapter.close();
      });

      it("has models in the catalog, unavailable without its key and available with it", () => {
        const models = modelCatalog.filter((m) => m.provider === name);
        expect(models.length).toBeGreaterThan(0);
        const engines = new Set(providerNames);
        for (const model of models) {
          expect(availabilityOf(model, { locations, engines }), model.id).toEqual({ available: false, reason: expect.stringContaining(`(${keyVariable})`) });
          expect(availabilityOf(model, { locations, engines, keys: { [name]: "key-1" } }), model.id).toEqual({ available: true });
          expect(poolFor({ provider: name, engineModel: model.engineModel }), model.id).toBe("cpu");
        }
      });

      it("is in the chart: its key a Secret value the transcription API and workers read", () => {
        const values = parse(readFileSync(path.join(repoRoot, "charts/transcribe/values.yaml"), "utf8")) as { models: { providerKeys: string[] }; secrets: { values: Record<string, string> } };
        const schema = JSON.parse(readFileSync(path.join(repoRoot, "charts/transcribe/values.schema.json"), "utf8")) as { properties: { secrets: { properties: { values: { properties: Record<string, unknown> } } } } };
        expect(values.models.providerKeys).toContain(keyVariable);
        expect(Object.keys(values.secrets.values)).toContain(keyVariable);
        expect(Object.keys(schema.properties.secrets.properties.values.properties)).toContain(keyVariable);
      });
    });
  }

  it("names in the chart's providerKeys only the registry's key variables", () => {
    const values = parse(readFileSync(path.join(repoRoot, "charts/transcribe/values.yaml"), "utf8")) as { models: { providerKeys: string[] } };
    expect([...values.models.providerKeys].sort()).toEqual(cloudProviderNames.map((name) => providers[name].keyVariable).sort());
  });
});

describe("the model registry", () => {
  it("has unique ids, one default, registered providers and languages", () => {
    expect(new Set(modelCatalog.map((m) => m.id)).size).toBe(modelCatalog.length);
    expect(modelCatalog.filter((m) => m.isDefault).map((m) => m.provider)).toEqual(["local"]);
    for (const model of modelCatalog) {
      expect(providerNames, model.id).toContain(model.provider);
      expect(model.languages.length, model.id).toBeGreaterThan(0);
      if (model.translationEngineModel) expect(model.translation, model.id).toBe(true);
    }
  });

  it("gives every local model its weights: repository, sizes, batch memory and pool", () => {
    const local = modelCatalog.filter((m) => m.provider === "local");
    expect(local.length).toBeGreaterThanOrEqual(10);
    for (const model of local) {
      const weights = model.weights!;
      expect(weights, model.id).toBeDefined();
      expect(weights.repository, model.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(hubRepo(model.engineModel), model.id).toBe(weights.repository);
      expect(weights.downloadBytes, model.id).toBeGreaterThan(0);
      expect(weights.ramBytes, model.id).toBeGreaterThan(weights.downloadBytes / 4);
      expect(poolFor({ provider: "local", engineModel: model.engineModel }), model.id).toBe(weights.pool);
      // Room for exactly three items, on a CPU with threads to want sixteen.
      expect(chooseBatchSize(model.engineModel, { device: "cpu", threads: 8, freeMemoryBytes: 2 * 3 * weights.batchItemBytes }), model.id).toBe(3);
    }
  });

  it("downloads each faster-whisper name from the repository faster-whisper itself uses", () => {
    // faster-whisper 1.2's utils._MODELS.
    const fasterWhisper: Record<string, string> = {
      "tiny.en": "Systran/faster-whisper-tiny.en",
      tiny: "Systran/faster-whisper-tiny",
      "base.en": "Systran/faster-whisper-base.en",
      base: "Systran/faster-whisper-base",
      "small.en": "Systran/faster-whisper-small.en",
      small: "Systran/faster-whisper-small",
      "medium.en": "Systran/faster-whisper-medium.en",
      medium: "Systran/faster-whisper-medium",
      "large-v1": "Systran/faster-whisper-large-v1",
      "large-v2": "Systran/faster-whisper-large-v2",
      "large-v3": "Systran/faster-whisper-large-v3",
      "distil-large-v2": "Systran/faster-distil-whisper-large-v2",
      "distil-medium.en": "Systran/faster-distil-whisper-medium.en",
      "distil-small.en": "Systran/faster-distil-whisper-small.en",
      "distil-large-v3": "Systran/faster-distil-whisper-large-v3",
      "large-v3-turbo": "mobiuslabsgmbh/faster-whisper-large-v3-turbo",
    };
    for (const [name, repository] of Object.entries(fasterWhisper)) expect(hubRepositoryOf(name), name).toBe(repository);
    expect(hubRepositoryOf("someone/their-conversion")).toBe("someone/their-conversion");
  });
});

describe.skipIf(engineUnavailable)("each cloud provider's adapter against its stand-in server", () => {
  let speech: { path: string; duration: number };
  beforeAll(async () => {
    speech = await synthesize("The committee met on Tuesday morning to review the budget.");
  }, 60_000);

  for (const name of cloudProviderNames) {
    describe(name, () => {
      let server: ProviderServer;
      beforeAll(async () => {
        server = await providerStandIns[name]("key-1");
      }, 60_000);
      afterAll(async () => server?.close());

      it("transcribes with the key, and finds speakers itself exactly when the registry says so", { timeout: 180_000 }, async () => {
        const adapter = cloudAdapters[name]({ apiKey: "key-1", baseURL: server.url });
        const model = modelCatalog.find((m) => m.provider === name)!;
        const result = await adapter.transcribe({
          audioPath: speech.path,
          durationSeconds: speech.duration,
          engineModel: model.engineModel,
          // Speakers asked of every adapter, as the worker does: only those that find them say so.
          settings: { language: "en", translateToEn: false, temperature: 0, diarize: true },
          signal: new AbortController().signal,
        });
        await adapter.close();
        expect(result.text.toLowerCase()).toContain("committee");
        expect(server.requests.length).toBeGreaterThan(0);
        expect(Boolean(result.providerSpeakers)).toBe(providerOf(name).speakers === "provider");
      });
    });
  }
});
