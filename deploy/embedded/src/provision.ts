/**
 * Prepares everything the first `npm start` would fetch, ahead of time (air-gapped hosts,
 * images, CI caches): checks ffmpeg/ffprobe (FFMPEG_PATH/FFPROBE_PATH, the system's, or the
 * static build npm installed), makes the speech engine's venv, fetches the chosen models.
 *
 *   npm run provision                      (the default model, base)
 *   npm run provision -- base tiny.en      (chosen models)
 *
 * Same variables as npm start: WHISPER_VENV, WHISPER_PYTHON, WHISPER_MODELS_DIR,
 * WHISPER_DOWNLOAD, HF_ENDPOINT, PIP_INDEX_URL (pip's own). Exits 1 naming what is missing.
 */
import { chooseTools, MissingToolError } from "../../../services/media/src/processing/ffmpeg-binaries.js";
import { defaultModel } from "../../../services/transcription/src/domain/models.js";
import { ensureEngineEnv } from "../../../services/transcription/src/provision/engine-env.js";
import { fetchModel } from "../../../services/transcription/src/provision/model-fetch.js";
import { percentOf, type ProvisionProgress, ProvisionError } from "../../../services/transcription/src/provision/progress.js";
import { defaultModelsDir, defaultVenvDir } from "../../../services/transcription/src/provision/provision.js";

const say = (message: string) => process.stdout.write(`provision: ${message}\n`);
let last = 0;
const progress = (p: ProvisionProgress) => {
  const midway = p.done !== undefined && p.total !== undefined && p.done > 0 && p.done < p.total;
  if (midway && Date.now() - last < 3_000) return;
  last = Date.now();
  const percent = percentOf(p);
  say(`${p.message}${midway && percent !== undefined ? ` (${percent}%)` : ""}`);
};

try {
  const { ffmpeg, ffprobe } = await chooseTools(process.env);
  say(`ffmpeg: ${ffmpeg.source} ${ffmpeg.path} (${ffmpeg.version})`);
  say(`ffprobe: ${ffprobe.source} ${ffprobe.path} (${ffprobe.version})`);
  const python =
    process.env.WHISPER_PYTHON || (await ensureEngineEnv({ venvDir: process.env.WHISPER_VENV || defaultVenvDir, onProgress: progress }));
  say(`speech engine: ${python}`);
  const modelsDir = process.env.WHISPER_MODELS_DIR || defaultModelsDir;
  const models = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [defaultModel.engineModel];
  for (const name of models) {
    const dir = await fetchModel({ name, modelsDir, python, hub: process.env.WHISPER_DOWNLOAD !== "false", onProgress: progress });
    say(`model ${name}: ${dir}`);
  }
  say("done: npm start will not download anything");
} catch (error) {
  if (!(error instanceof ProvisionError || error instanceof MissingToolError)) throw error;
  process.stderr.write(`provision: ${error.message}\n`);
  process.exit(1);
}
