import path from "node:path";
import { defaultModel } from "@transcribe/transcription/domain/models";
import { parseModelPaths } from "@transcribe/transcription/engines/local/models";
import { percentOf, type ProvisionProgress } from "@transcribe/transcription/provision/progress";
import { defaultModelsDir, defaultVenvDir, provision, venvPython } from "@transcribe/transcription/provision/provision";
import { statusFileIn, writeStatus } from "@transcribe/transcription/provision/status-file";

/**
 * The local speech engine on `npm start` (decision 0019): its Python environment and the
 * default model are prepared in the background while every service runs; the worker
 * reads the progress from the status file and reports "preparing" until it is done.
 */
export interface EngineSetup {
  /** Variables for the services (the worker's interpreter, the status file, the models directory). */
  env: Record<string, string>;
  /** Runs the preparation; never throws (a failure is reported as the engine's state). */
  prepare(): Promise<void>;
}

export async function engineSetup(dataDir: string, source: NodeJS.ProcessEnv, log: (message: string) => void): Promise<EngineSetup> {
  const statusFile = statusFileIn(dataDir);
  const givenPython = source.WHISPER_PYTHON || undefined;
  const python = givenPython ?? venvPython(source.WHISPER_VENV || defaultVenvDir);
  const modelsDir = source.WHISPER_MODELS_DIR || defaultModelsDir;
  const explicit = parseModelPaths(source.WHISPER_MODEL_PATHS);
  // Before any service starts: a worker must not read the previous run's "ready".
  await writeStatus(statusFile, { state: "preparing", message: "preparing the speech engine" });
  const env = { WHISPER_PYTHON: python, ENGINE_STATUS_FILE: statusFile, WHISPER_MODELS_DIR: modelsDir };

  let shown = "";
  let shownAt = 0;
  const show = (progress: ProvisionProgress) => {
    if (progress.step === "ready") return; // said once below, with the time it took
    const now = Date.now();
    const midway = progress.done !== undefined && progress.total !== undefined && progress.done > 0 && progress.done < progress.total;
    // Progress lines every few seconds; every other message at once.
    if (progress.message === shown || (midway && now - shownAt < 3_000)) return;
    shown = progress.message;
    shownAt = now;
    const percent = percentOf(progress);
    log(`${progress.message}${midway && percent !== undefined ? ` (${percent}%)` : ""}`);
  };

  return {
    env,
    async prepare() {
      const started = Date.now();
      const result = await provision({
        python: givenPython,
        venvDir: source.WHISPER_VENV || defaultVenvDir,
        models: [defaultModel.engineModel],
        modelsDir,
        existingModelDirs: (name) => [explicit[name] ?? "", path.join(modelsDir, name), path.join(dataDir, "models", name)].filter(Boolean),
        hub: source.WHISPER_DOWNLOAD !== "false",
        statusFile,
        onProgress: show,
      });
      const seconds = Math.round((Date.now() - started) / 1000);
      if (result.ok) log(`speech engine ready after ${seconds} s (${result.python}; models in ${modelsDir})`);
      else log(`local models unavailable: ${result.reason}`);
    },
  };
}
