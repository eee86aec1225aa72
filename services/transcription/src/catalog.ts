import { totalmem } from "node:os";
import { type CloudProviderName, modelCatalog, type ModelDefinition, providerOf } from "./domain/models.js";
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
  /** Each cloud provider's API key (its registry keyVariable), when configured. */
  keys?: Partial<Record<CloudProviderName, string | undefined>> | undefined;
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
    default: {
      const provider = providerOf(model.provider);
      if (!environment.keys?.[model.provider]) {
        return { available: false, reason: `Needs ${article(provider.label)} ${provider.label} API key (${provider.keyVariable}) on the server` };
      }
      if (!environment.engines.has(model.provider)) return { available: false, reason: `The ${provider.label} engine is not part of this build yet` };
      return { available: true };
    }
  }
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

export function catalogWithAvailability(environment: CatalogEnvironment, engine?: EngineState) {
  return modelCatalog.map((model) => ({ model, ...availabilityOf(model, environment, engine) }));
}
