import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { isModelDir } from "@transcribe/transcription/engines/local/models";

export const whisperPython = process.env.WHISPER_PYTHON ?? path.join(homedir(), ".cache", "transcribe", "engine-venv", "bin", "python");
export const whisperModelsDir = process.env.WHISPER_MODELS_DIR ?? path.join(homedir(), ".cache", "transcribe", "models");

/**
 * Why these tests cannot run here (no engine, no tiny.en weights, no espeak-ng or
 * ffmpeg), or undefined. In CI a missing piece is a failure, not a skip.
 */
export const engineUnavailable: string | undefined = (() => {
  let problem: string | undefined;
  if (!existsSync(whisperPython)) problem = `no engine Python at ${whisperPython} (services/transcription/engine/setup.sh)`;
  else if (!isModelDir(path.join(whisperModelsDir, "tiny.en"))) problem = `no Whisper tiny.en weights in ${whisperModelsDir} (deploy/models/fetch-models.sh)`;
  else {
    for (const tool of ["espeak-ng", "ffmpeg"]) {
      try {
        execFileSync("which", [tool], { stdio: "ignore" });
      } catch {
        problem = `${tool} is not installed`;
      }
    }
  }
  if (problem && process.env.CI) throw new Error(`The reliability tests need the real engine in CI: ${problem}`);
  if (problem) console.warn(`[reliability] skipping: ${problem}`);
  return problem;
})();
