import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availabilityOf, type CatalogEnvironment } from "../src/catalog.js";
import { transcriptionConfig } from "../src/config.js";
import { findModel } from "../src/domain/models.js";

/**
 * Who may cause a model download (decision 0033): a user's job only for the models on the
 * administrators' list (WHISPER_USER_DOWNLOADS); every other model must be downloaded by
 * an administrator first. A model too big for the workers' memory is refused outright.
 */
describe("which models a user's job may download", () => {
  let dir: string;
  let environment: CatalogEnvironment;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "user-downloads-"));
    environment = {
      locations: { explicit: {}, modelsDir: path.join(dir, "none"), dataModelsDir: path.join(dir, "models"), allowDownload: true },
      engines: new Set(["local"]),
      memoryBytes: 4 * 1024 ** 3,
      userDownloads: transcriptionConfig.parse({}).WHISPER_USER_DOWNLOADS,
    };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("lets a user's job wait for the download of a listed model", () => {
    expect(availabilityOf(findModel("whisper-base.en")!, environment)).toMatchObject({ available: false, preparing: true });
  });

  it("refuses a user's job for a model outside the list, naming who can download it", () => {
    const medium = availabilityOf(findModel("whisper-medium")!, environment);
    expect(medium).toMatchObject({ available: false, present: false });
    expect(medium.preparing).toBeFalsy();
    expect(medium.reason).toMatch(/administrator/);
  });

  it("refuses a model that cannot fit the workers' memory whoever asks", () => {
    const large = availabilityOf(findModel("whisper-large-v3-local")!, { ...environment, userDownloads: undefined });
    expect(large).toMatchObject({ available: false });
    expect(large.preparing).toBeFalsy();
    expect(large.reason).toMatch(/memory/);
  });

  it("reads WHISPER_USER_DOWNLOADS as catalog ids of local models, refusing others", () => {
    expect([...transcriptionConfig.parse({ WHISPER_USER_DOWNLOADS: "whisper-small, whisper-tiny" }).WHISPER_USER_DOWNLOADS!].sort()).toEqual(["whisper-small", "whisper-tiny"]);
    expect(transcriptionConfig.parse({ WHISPER_USER_DOWNLOADS: "" }).WHISPER_USER_DOWNLOADS!.size).toBe(0);
    expect(() => transcriptionConfig.parse({ WHISPER_USER_DOWNLOADS: "whisper-9000" })).toThrow(/whisper-9000/);
    expect(() => transcriptionConfig.parse({ WHISPER_USER_DOWNLOADS: "scribe-v1" })).toThrow(/scribe-v1/);
  });
});
