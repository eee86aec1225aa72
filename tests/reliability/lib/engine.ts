import { existsSync } from "node:fs";
import path from "node:path";
import { mediaToolsProblem } from "@transcribe/media/testing/tools";
import { skipWhen } from "@transcribe/platform/testing";
import { isModelDir } from "@transcribe/transcription/engines/local/models";
import { defaultModelsDir, defaultVenvDir, venvPython } from "@transcribe/transcription/provision/provision";

// Where `npm test` (scripts/prepare-tests.ts) and `npm start` put them, unless told otherwise.
export const whisperPython = process.env.WHISPER_PYTHON || venvPython(process.env.WHISPER_VENV || defaultVenvDir);
export const whisperModelsDir = process.env.WHISPER_MODELS_DIR || defaultModelsDir;

/**
 * Why these tests cannot run here (no engine, no tiny.en weights, no ffmpeg media could
 * run either), or undefined; espeak-ng always runs (its WASM build stands in for a system
 * one). In CI a missing piece is a failure, not a skip.
 */
export const engineUnavailable: string | undefined = (() => {
  let problem: string | undefined;
  if (!existsSync(whisperPython)) problem = `no engine Python at ${whisperPython} (npm test prepares it; or set WHISPER_PYTHON)`;
  else if (!isModelDir(path.join(whisperModelsDir, "tiny.en"))) problem = `no Whisper tiny.en weights in ${whisperModelsDir} (npm test fetches them; or set WHISPER_MODELS_DIR)`;
  else problem = mediaToolsProblem;
  skipWhen("engine", problem);
  if (problem && process.env.CI) throw new Error(`The reliability tests need the real engine in CI: ${problem}`);
  if (problem) console.warn(`[reliability] skipping: ${problem}`);
  return problem;
})();
