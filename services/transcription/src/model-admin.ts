import { AppError, type Logger } from "@transcribe/platform";
import path from "node:path";
import { availabilityOf, type Availability, type CatalogEnvironment } from "./catalog.js";
import type { Db } from "./db/repository.js";
import { findModel, type ModelDefinition } from "./domain/models.js";
import { activeStatuses } from "./domain/status.js";
import { resolveModel } from "./engines/local/models.js";
import { fetchModel, removeModel } from "./provision/model-fetch.js";

export interface ModelAdminDeps {
  db: Db;
  catalog: CatalogEnvironment;
  /** The engine's Python, which runs the hub download (WHISPER_PYTHON). */
  python: string;
  logger: Logger;
}

function localModel(id: string): ModelDefinition {
  const model = findModel(id);
  if (!model) throw new AppError("not_found", `Unknown model: ${id}`);
  if (model.provider !== "local") {
    throw new AppError("failed_precondition", `${model.id} runs at ${model.provider}: there are no files to download or remove here`);
  }
  return model;
}

/**
 * An administrator's download, ahead of use: the one model-fetch path, into the directory
 * where a job's download lands (DATA_DIR/models), so a worker that needs it meanwhile joins
 * it when in this process, and finds the files afterwards. Returns at once; progress and a
 * failure show in the catalog.
 */
export function startModelDownload(deps: ModelAdminDeps, id: string): { model: ModelDefinition; availability: Availability } {
  const model = localModel(id);
  // An administrator may download any model that fits (the users' list does not apply).
  const asAdmin = { ...deps.catalog, userDownloads: undefined };
  const before = availabilityOf(model, asAdmin);
  if (before.present) return { model, availability: before };
  if (!before.preparing) throw new AppError("failed_precondition", `${model.name}: ${before.reason}`);
  const { dataModelsDir } = deps.catalog.locations;
  deps.logger.info({ model: model.engineModel, dir: dataModelsDir }, "downloading Whisper model for an administrator");
  fetchModel({ name: model.engineModel, modelsDir: dataModelsDir, python: deps.python, hub: true }).then(
    (dir) => deps.logger.info({ model: model.engineModel, dir }, "Whisper model downloaded"),
    (error: unknown) => deps.logger.warn({ model: model.engineModel, err: error }, "Whisper model download failed"),
  );
  return { model, availability: availabilityOf(model, asAdmin) };
}

/**
 * Removes a local model's files from the models directories this server manages. Refused
 * for the default model, while a job waits for or runs on it, and for a path an operator
 * configured (WHISPER_MODEL_PATHS): those are the operator's, not ours to delete.
 */
export async function removeLocalModel(deps: ModelAdminDeps, id: string): Promise<{ model: ModelDefinition; removed: boolean }> {
  const model = localModel(id);
  if (model.isDefault) throw new AppError("failed_precondition", `${model.id} is the default model; it cannot be removed`);
  const { locations } = deps.catalog;
  if (locations.explicit[model.engineModel]) {
    throw new AppError("failed_precondition", `${model.id} comes from WHISPER_MODEL_PATHS; remove it from the configuration instead`);
  }
  const busy = await deps.db
    .selectFrom("transcription_jobs")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("engine_model", "=", model.engineModel)
    .where("status", "in", [...activeStatuses])
    .executeTakeFirstOrThrow();
  if (Number(busy.count) > 0) {
    throw new AppError("failed_precondition", `${model.id} is in use by ${busy.count} transcription job(s); remove it when they have finished`);
  }
  let removed = false;
  try {
    // A copy in WHISPER_MODELS_DIR and one in DATA_DIR/models: both go, or the model stays present.
    for (let resolution = resolveModel(model.engineModel, locations); resolution.kind === "found"; resolution = resolveModel(model.engineModel, locations)) {
      if (!(await removeModel(path.dirname(resolution.dir), model.engineModel))) break;
      removed = true;
    }
    await removeModel(locations.dataModelsDir, model.engineModel);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("failed_precondition", (error as Error).message);
  }
  deps.logger.info({ model: model.engineModel, removed }, "Whisper model removed by an administrator");
  return { model, removed };
}
