/**
 * A long file through the product's local engine adapter, in chunks, compared with the
 * script it was synthesized from: word error rate, words duplicated or lost at the seams,
 * real-time factor.
 *
 *   npx tsx bench/transcription/long-audio.ts [--minutes 10] [--model tiny.en] [--chunk 300] [--overlap 5]
 *
 * Needs espeak-ng, ffmpeg, the engine (services/transcription/engine/setup.sh) and the
 * weights (deploy/models/fetch-models.sh). Writes bench/transcription/long-audio-<model>.json.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "@transcribe/platform";
import { LocalTranscriber } from "../../services/transcription/src/engines/local/local-transcriber.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    model: { type: "string", default: "tiny.en" },
    chunk: { type: "string", default: "300" },
    overlap: { type: "string", default: "5" },
    beam: { type: "string", default: "5" },
  },
});

const sentences = [
  "The committee met on Tuesday morning to review the budget for the new library.",
  "Several members asked whether the building could open before the end of the summer.",
  "The architect explained that the roof would take another six weeks to finish.",
  "Fresh bread was sold at the market every Saturday, and people queued early to buy it.",
  "The baker started work at four in the morning, long before the streets were awake.",
  "Please remember to switch off the lights when you leave the office tonight.",
  "Our electricity bill doubled last winter, and the manager wants everyone to help.",
  "The river rose quickly after three days of heavy rain in the mountains.",
  "Farmers moved their animals to higher ground before the water reached the fields.",
  "A small boat carried letters and medicine to the island twice a week.",
  "The museum opened a new room for paintings by artists from the northern coast.",
  "Children learned to plant tomatoes and beans in the school garden this spring.",
];

function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter(Boolean);
}

const dir = mkdtempSync(path.join(tmpdir(), "transcribe-long-"));
const target = Number(values.minutes) * 60;
const clips: string[] = [];
const script: string[] = [];
let total = 0;
const voices = ["en-us", "en-gb", "en-us+f3", "en-gb-x-rp"];
for (let i = 0; total < target; i++) {
  const sentence = sentences[i % sentences.length]!;
  const raw = path.join(dir, `s${i}-raw.wav`);
  const out = path.join(dir, `s${i}.wav`);
  execFileSync("espeak-ng", ["-v", voices[i % voices.length]!, "-s", String(150 + (i % 4) * 10), "-w", raw, sentence]);
  execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", raw, "-ar", "16000", "-ac", "1", out]);
  clips.push(out);
  script.push(sentence);
  total += (statSync(out).size - 44) / 32000;
}
const list = path.join(dir, "list.txt");
writeFileSync(list, clips.map((c) => `file '${c}'`).join("\n"));
const long = path.join(dir, "long.wav");
execFileSync("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", long]);
const duration = (statSync(long).size - 44) / 32000;

const cache = path.join(homedir(), ".cache", "transcribe");
const engine = new LocalTranscriber({
  python: process.env.WHISPER_PYTHON ?? path.join(cache, "engine-venv", "bin", "python"),
  locations: { explicit: {}, modelsDir: process.env.WHISPER_MODELS_DIR ?? path.join(cache, "models"), dataModelsDir: ".data/models", allowDownload: false },
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
  language: "en",
  task: "transcribe",
  temperature: 0,
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

const reference = words(script.join(" "));
const hypothesis = words(result.text);

/**
 * Word alignment (Levenshtein backtrace). A seam that duplicated words shows as a run of
 * insertions, one that lost words as a run of deletions; ordinary recognition errors are
 * mostly substitutions and single insertions/deletions.
 */
function alignment(r: string[], h: string[]) {
  const d: number[][] = Array.from({ length: r.length + 1 }, (_, i) => {
    const row = new Array<number>(h.length + 1).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j <= h.length; j++) d[0]![j] = j;
  for (let i = 1; i <= r.length; i++) {
    for (let j = 1; j <= h.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
  }
  const ops: Array<"=" | "s" | "i" | "d"> = [];
  let i = r.length;
  let j = h.length;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1)) {
      ops.push(r[i - 1] === h[j - 1] ? "=" : "s");
      i--;
      j--;
    } else if (j > 0 && d[i]![j] === d[i]![j - 1]! + 1) {
      ops.push("i");
      j--;
    } else {
      ops.push("d");
      i--;
    }
  }
  ops.reverse();
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
  load_average_1m: Number((await import("node:os")).loadavg()[0]!.toFixed(1)),
};
console.log(JSON.stringify(report, null, 2));
writeFileSync(path.join(import.meta.dirname, `long-audio-${values.model}-chunk${values.chunk}.json`), JSON.stringify(report, null, 2) + "\n");
rmSync(dir, { recursive: true, force: true });
