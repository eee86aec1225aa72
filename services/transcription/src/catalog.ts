import { modelCatalog, type ModelDefinition } from "./domain/models.js";
import { resolveModel, type ModelLocations } from "./engines/local/models.js";
import type { EngineState } from "./worker/engine-state.js";

export interface Availability {
  available: boolean;
  reason?: string;
  /** Not runnable yet, but being prepared: a job may be started and waits for it. */
  preparing?: boolean;
}

export interface CatalogEnvironment {
  locations: ModelLocations;
  groqKey?: string | undefined;
  elevenLabsKey?: string | undefined;
  /** Providers this build can run (an engine adapter exists). */
  engines: ReadonlySet<string>;
}

/**
 * Whether a model can run here now, with a reason a user can read when it cannot. Local
 * models follow the workers' engine reports (`engine`; undefined when no worker reported,
 * then only the model files count).
 */
export function availabilityOf(model: ModelDefinition, environment: CatalogEnvironment, engine?: EngineState): Availability {
  switch (model.provider) {
    case "local": {
      if (engine?.state === "preparing") return { available: false, reason: engine.reason, preparing: true };
      if (engine?.state === "unavailable") return { available: false, reason: engine.reason };
      const resolution = resolveModel(model.engineModel, environment.locations);
      if (resolution.kind === "missing") {
        return { available: false, reason: `Model files are not installed on this server (${model.engineModel})` };
      }
      return { available: true };
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
