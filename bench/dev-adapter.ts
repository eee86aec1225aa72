import { createLogger } from "@transcribe/platform";
import { LocalTranscriber } from "../services/transcription/src/engines/local/local-transcriber.js";
import { BareEngine, modelsDir, whisperPython } from "./lib/engine.js";
import { speech } from "./lib/speech.js";
const audio = speech(120);
const t = new LocalTranscriber({ python: whisperPython, locations: { explicit: {}, modelsDir, dataModelsDir: ".data/models", allowDownload: false }, computeType: "int8", threads: 2, beamSize: 5, chunkSeconds: 300, overlapSeconds: 5, chunkTimeFactor: 20, logger: createLogger("b", "warn") });
const req = () => ({ audioPath: audio.file, durationSeconds: audio.seconds, engineModel: "tiny.en", language: "en", task: "transcribe" as const, temperature: 0, signal: new AbortController().signal });
await t.transcribe(req());
const bare = await BareEngine.start({ model: "tiny.en", threads: 2 });
await bare.transcribe(audio.file);
for (let i = 0; i < 3; i++) {
  let s = performance.now(); await t.transcribe(req()); const a = (performance.now() - s) / 1000;
  const b = await bare.transcribe(audio.file);
  console.log(`adapter ${a.toFixed(2)} bare ${b.seconds.toFixed(2)} ratio ${(a / b.seconds).toFixed(3)}`);
}
await t.close(); await bare.close();
