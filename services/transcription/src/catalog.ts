import { totalmem } from "node:os";
import { modelCatalog, type ModelDefinition } from "./domain/models.js";
import { resolveModel, type ModelLocations } from "./engines/local/models.js";
import { downloadFailure, downloadProgress } from "./provision/model-fetch.js";
import { sizeText } from "./provision/progress.js";
import type { EngineState } from "./worker/engine-state.js";

export interface Availability {
  available: boolean;
  reason?: string;
  /** Not runnable yet, but being prepared: a job may be started and waits for it. */
  preparing?: boolean;
  /** Local models: whether the weights are on this server. */
  present?: boolean;
  /** Local models: a download of the weights running now (bytes; total unknown until the hub answers). */
  download?: { done: number; total?: number | undefined };
}

export interface CatalogEnvironment {
  locations: ModelLocations;
  groqKey?: string | undefined;
  elevenLabsKey?: string | undefined;
  /** Providers this build can run (an engine adapter exists). */
  engines: ReadonlySet<string>;
  /** Memory of the machine that runs local models; default this machine's. */
  memoryBytes?: number;
  /**
   * Local models a user's job may download on first use (WHISPER_USER_DOWNLOADS, decision
   * 0033); undefined: any (an administrator's download, and tests of one service).
   */
  userDownloads?: ReadonlySet<string> | undefined;
}


/**
 * Whether a model can run here now, with a reason a user can read when it cannot. Local
 * models follow the workers' engine reports (`engine`; undefined when no worker reported,
 * then only the model files count).
 */
export function availabilityOf(model: ModelDefinition, environment: CatalogEnvironment, engine?: EngineState): Availability {
  switch (model.provider) {
    case "local": {
      const resolution = resolveModel(model.engineModel, environment.locations);
      const present = resolution.kind === "found";
      const memory = environment.memoryBytes ?? totalmem();
      if (model.weights && model.weights.ramBytes > memory) {
        return {
          available: false,
          present,
          reason: `Needs about ${sizeText(model.weights.ramBytes)} of memory; this server has ${sizeText(memory)}`,
        };
      }
      if (engine?.state === "preparing") return { available: false, reason: engine.reason, preparing: true, present };
      if (engine?.state === "unavailable") return { available: false, reason: engine.reason, present };
      if (present) return { available: true, present };
      const running = downloadProgress(environment.locations.dataModelsDir, model.engineModel);
      if (running) {
        return { available: false, preparing: true, present, reason: running.message, download: { done: running.done ?? 0, total: running.total } };
      }
      if (resolution.kind === "download" && environment.userDownloads && !environment.userDownloads.has(model.id)) {
        const size = model.weights ? ` (${sizeText(model.weights.downloadBytes)})` : "";
        return { available: false, present, reason: `Not downloaded on this server${size}; an administrator can download it (Settings → Models)` };
      }
      if (resolution.kind === "download") {
        const size = model.weights ? ` (${sizeText(model.weights.downloadBytes)})` : "";
        const failed = downloadFailure(environment.locations.dataModelsDir, model.engineModel);
        return {
          available: false,
          preparing: true,
          present,
          reason: `Not downloaded yet${size}; it downloads when first used or an administrator can download it now${failed ? `. The last download failed: ${failed}` : ""}`,
        };
      }
      return {
        available: false,
        present,
        reason: `Model files are not installed on this server (${model.engineModel}) and downloads are off (WHISPER_DOWNLOAD=false)`,
      };
    }
    case "groq":
      if (!environment.groqKey) return { available: false, reason: "Needs a Groq API key (GROQ_API_KEY) on the server" };
      if (!environment.engines.has("groq")) return { available: false, reason: "The Groq engine is not part of this build yet" };
      return { available: true };
    case "elevenlabs":
      if (!environment.elevenLabsKey) {
        return { available: false, reason: "Needs an ElevenLabs API key (ELEVENLABS_API_KEY) on the server" };
      }
      if (!environment.engines.has("elevenlabs")) {
        return { available: false, reason: "The ElevenLabs engine is not part of this build yet" };
      }
      return { available: true };
  }
}

export function catalogWithAvailability(environment: CatalogEnvironment, engine?: EngineState) {
  return modelCatalog.map((model) => ({ model, ...availabilityOf(model, environment, engine) }));
}
