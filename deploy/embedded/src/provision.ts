/**
 * Prepares everything the first `npm start` would fetch, ahead of time (air-gapped hosts,
 * images, CI caches): checks ffmpeg/ffprobe (FFMPEG_PATH/FFPROBE_PATH, the system's, or the
 * static build npm installed), makes the speech engine's venv, fetches the chosen models.
 *
 *   npm run provision                      (the default model, base)
 *   npm run provision -- base tiny.en      (chosen models)
 *   npm run provision -- --model medium    (any local model of the catalog, by name or id)
 *   npm run provision -- --remove medium   (deletes its files from WHISPER_MODELS_DIR)
 *
 * Same variables as npm start: WHISPER_VENV, WHISPER_PYTHON, WHISPER_MODELS_DIR,
 * WHISPER_DOWNLOAD, HF_ENDPOINT, PIP_INDEX_URL (pip's own). Exits 1 naming what is missing.
 */
import { chooseTools, MissingToolError } from "@transcribe/media/processing/ffmpeg-binaries";
import { parseArgs } from "node:util";
import { defaultModel, modelCatalog } from "@transcribe/transcription/domain/models";
import { ensureEngineEnv } from "@transcribe/transcription/provision/engine-env";
import { fetchModel, removeModel } from "@transcribe/transcription/provision/model-fetch";
import { percentOf, type ProvisionProgress, ProvisionError } from "@transcribe/transcription/provision/progress";
import { defaultModelsDir, defaultVenvDir } from "@transcribe/transcription/provision/provision";

const say = (message: string) => process.stdout.write(`provision: ${message}\n`);
let last = 0;
const progress = (p: ProvisionProgress) => {
  const midway = p.done !== undefined && p.total !== undefined && p.done > 0 && p.done < p.total;
  if (midway && Date.now() - last < 3_000) return;
  last = Date.now();
  const percent = percentOf(p);
  say(`${p.message}${midway && percent !== undefined ? ` (${percent}%)` : ""}`);
};

/** A local model of the catalog by its weights name (medium) or id (whisper-medium). */
function localName(value: string): string {
  const local = modelCatalog.filter((m) => m.provider === "local");
  const model = local.find((m) => m.engineModel === value || m.id === value);
  if (!model) throw new ProvisionError(`"${value}" is not a local model of the catalog (${local.map((m) => m.engineModel).join(", ")})`);
  return model.engineModel;
}

try {
  const args = parseArgs({ allowPositionals: true, options: { model: { type: "string", multiple: true }, remove: { type: "string", multiple: true } } });
  const modelsDir = process.env.WHISPER_MODELS_DIR || defaultModelsDir;
  if (args.values.remove?.length) {
    for (const name of args.values.remove.map(localName)) {
      if (name === defaultModel.engineModel) throw new ProvisionError(`${name} is the default model; it cannot be removed`);
      say(`model ${name}: ${(await removeModel(modelsDir, name)) ? "removed" : "was not"} in ${modelsDir}`);
    }
    process.exit(0);
  }
  const chosen = [...args.positionals, ...(args.values.model ?? [])].map(localName);
  const { ffmpeg, ffprobe } = await chooseTools(process.env);
  say(`ffmpeg: ${ffmpeg.source} ${ffmpeg.path} (${ffmpeg.version})`);
  say(`ffprobe: ${ffprobe.source} ${ffprobe.path} (${ffprobe.version})`);
  const python =
    process.env.WHISPER_PYTHON || (await ensureEngineEnv({ venvDir: process.env.WHISPER_VENV || defaultVenvDir, onProgress: progress }));
  say(`speech engine: ${python}`);
  const models = chosen.length > 0 ? chosen : [defaultModel.engineModel];
  for (const name of models) {
    const dir = await fetchModel({ name, modelsDir, python, hub: process.env.WHISPER_DOWNLOAD !== "false", onProgress: progress });
    say(`model ${name}: ${dir}`);
  }
  say("done: npm start will not download anything");
} catch (error) {
  if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
    process.stderr.write(`provision: ${(error as Error).message}\n`);
    process.exit(2);
  }
  if (!(error instanceof ProvisionError || error instanceof MissingToolError)) throw error;
  process.stderr.write(`provision: ${error.message}\n`);
  process.exit(1);
}
