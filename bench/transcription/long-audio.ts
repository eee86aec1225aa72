/**
 * A long file through the product's local engine adapter, in chunks, compared with the
 * script it was synthesized from: word error rate, words duplicated or lost at the seams,
 * real-time factor.
 *
 *   npx tsx bench/transcription/long-audio.ts [--minutes 10] [--model tiny.en] [--chunk 300] [--overlap 5]
 *
 * Needs the engine (services/transcription/engine/setup.sh) and the
 * weights (deploy/models/fetch-models.sh). Writes bench/transcription/long-audio-<model>-chunk<chunk>.json.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "@transcribe/platform";
import { LocalTranscriber } from "@transcribe/transcription/engines/local/local-transcriber";
import { modelsDir, whisperPython } from "../lib/engine.js";
import { speech } from "../lib/speech.js";
import { align, words } from "../lib/wer.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    model: { type: "string", default: "tiny.en" },
    chunk: { type: "string", default: "300" },
    overlap: { type: "string", default: "5" },
    beam: { type: "string", default: "5" },
  },
});

// Twelve sentences cycled over four voices and speeds (bench/lib/speech.ts).
const audio = speech(Number(values.minutes) * 60);
const long = audio.file;
const duration = audio.seconds;

const engine = new LocalTranscriber({
  python: whisperPython,
  locations: { explicit: {}, modelsDir, dataModelsDir: ".data/models", allowDownload: false },
  computeType: "int8",
  threads: 0,
  beamSize: Number(values.beam),
  chunkSeconds: Number(values.chunk),
  overlapSeconds: Number(values.overlap),
  chunkTimeFactor: 20,
  logger: createLogger("bench", "warn"),
});
let chunks = 0;
const started = performance.now();
const result = await engine.transcribe({
  audioPath: long,
  durationSeconds: duration,
  engineModel: values.model!,
  settings: { language: "en", translateToEn: false, temperature: 0 },
  signal: new AbortController().signal,
  onChunk: async (chunk) => {
    chunks++;
    if (process.env.DEBUG_SEAMS) {
      const from = Number(process.env.DEBUG_SEAMS) - 12;
      const to = from + 24;
      const ws = chunk.segments.flatMap((s) => s.words).filter((w) => w.end > from && w.start < to);
      console.error(`chunk ${chunk.index} [${chunk.start}, ${chunk.end}]: ${ws.map((w) => `${w.word.trim()}@${w.start.toFixed(1)}`).join(" ")}`);
      console.error(`   segments: ${chunk.segments.filter((s) => s.end > from && s.start < to).map((s) => `[${s.start.toFixed(1)}-${s.end.toFixed(1)}]${s.text}`).join(" | ")}`);
    }
  },
});
const seconds = (performance.now() - started) / 1000;
await engine.close();

const reference = words(audio.script);
const hypothesis = words(result.text);

/**
 * Runs in the word alignment: a seam that duplicated words shows as a run of insertions,
 * one that lost words as a run of deletions; ordinary recognition errors are mostly
 * substitutions and single insertions/deletions.
 */
function alignment(r: string[], h: string[]) {
  const ops = align(r, h);
  // Where each run is: its words, and the time of the transcript word just before it.
  const runs = { insertions: [] as string[], deletions: [] as string[] };
  let run = 0;
  let kind = "";
  let ri = 0;
  let hi = 0;
  const times = result.segments.flatMap((s) => s.words.filter((w) => words(w.word).length > 0).map((w) => w.start));
  for (const op of [...ops, "="]) {
    if (op === kind) run++;
    else {
      const at = times[Math.max(0, hi - (kind === "i" ? run : 0) - 1)]?.toFixed(1);
      if (kind === "i" && run >= 3) runs.insertions.push(`${run} words after ${at} s: ${h.slice(hi - run, hi).join(" ")}`);
      if (kind === "d" && run >= 3) runs.deletions.push(`${run} words after ${at} s: ${r.slice(ri - run, ri).join(" ")}`);
      kind = op;
      run = 1;
    }
    if (op === "=" || op === "s") {
      ri++;
      hi++;
    } else if (op === "i") hi++;
    else ri++;
  }
  const count = (k: string) => ops.filter((o) => o === k).length;
  return { substitutions: count("s"), insertions: count("i"), deletions: count("d"), runs };
}
const aligned = alignment(reference, hypothesis);
const report = {
  date: new Date().toISOString().slice(0, 10),
  model: values.model,
  audio_seconds: Math.round(duration),
  chunks,
  chunk_seconds: Number(values.chunk),
  overlap_seconds: Number(values.overlap),
  beam_size: Number(values.beam),
  wall_seconds: Math.round(seconds),
  rtf: Number((seconds / duration).toFixed(3)),
  wer: Number(((aligned.substitutions + aligned.insertions + aligned.deletions) / reference.length).toFixed(3)),
  reference_words: reference.length,
  transcript_words: hypothesis.length,
  substitutions: aligned.substitutions,
  insertions: aligned.insertions,
  deletions: aligned.deletions,
  insertion_runs_of_3_or_more: aligned.runs.insertions,
  deletion_runs_of_3_or_more: aligned.runs.deletions,
  seams_at_seconds: Array.from({ length: chunks - 1 }, (_, i) => (i + 1) * (Number(values.chunk) - Number(values.overlap)) + Number(values.overlap) / 2),
  segments: result.segments.length,
  dropped_by_guard: result.dropped.length,
  load_average_1m: Number(loadavg()[0]!.toFixed(1)),
};
console.log(JSON.stringify(report, null, 2));
writeFileSync(path.join(import.meta.dirname, `long-audio-${values.model}-chunk${values.chunk}.json`), `${JSON.stringify(report, null, 2)}\n`);
