import type { BenchResult } from "../lib/results.js";
import type { Mode, Row } from "../transcription/batched.js";
import { notRecorded, num, pct, provenance, table } from "./markdown.js";
import type { Section } from "./sections.js";

/*
 * The batched-decoding section of docs/benchmarks.md (bench/transcription/batched.ts,
 * decision 0026), with the GPU row that stays empty until a GPU machine measures it.
 */

export interface BatchedData {
  complete: boolean;
  model: string;
  /** Absent in runs from before the benchmark read WHISPER_DEVICE: those ran on the CPU. */
  device?: "cpu" | "cuda";
  computeType: string;
  beamSize: number;
  threads: number;
  cores: number;
  batchSize: number;
  chunkSeconds: number;
  overlapSeconds: number;
  rows: Row[];
  fastest: Array<{ minutes: number; mode: Mode | undefined; speedupOverSequential: number | undefined }>;
}

const MODE_NAMES: Record<Mode, string> = {
  sequential: "sequential (1 engine × 2 threads)",
  parallel: "parallel windows (2 engines × 1 thread)",
  batched: "batched (1 engine × 2 threads)",
};

/** The GPU run's table (batched-gpu.json, written by a run with WHISPER_DEVICE=cuda), or why there is none. */
function gpuSection(gpu: BenchResult<BatchedData> | undefined): string {
  const how = "`WHISPER_DEVICE=cuda npm run bench:batched -- --modes batched --model large-v3-turbo` on a GPU node fills it (`bench/results/batched-gpu.json`).";
  if (!gpu) {
    return `### On a GPU

Not measured: no GPU machine was available to this project when the GPU worker pool was built
(decision 0026). The table stays empty rather than estimated; ${how}`;
  }
  const d = gpu.data;
  return `### On a GPU

${provenance(gpu)} ${d.model}, ${d.computeType}, beam ${d.beamSize}, batch size ${d.batchSize}.${d.complete ? "" : " **The run was cut short: only the passes below were measured.**"}

${table(
  ["file", "mode", "model", "device", "wall s", "RTF", "WER"],
  d.rows.map((r) => [`${num(r.minutes, 0)} min`, r.mode, d.model, `${d.device ?? "cpu"}, ${d.computeType}`, num(r.seconds, 1), num(r.rtf, 3), pct(r.wer, 2)]),
)}`;
}

export function batchedSection(result: BenchResult<BatchedData> | undefined, gpuResult?: BenchResult<BatchedData>): Section {
  const intro = `## 3b. Sequential vs parallel windows vs batched decoding (10 and 60 minutes)

\`npm run bench:batched\` (\`bench/transcription/batched.ts\`, decision 0026). The same synthesized files
(espeak-ng, the script is the WER reference) through the worker's engine adapter (\`LocalTranscriber\`)
three ways, **one pass each**, in one run: **sequential** — one engine with both threads, Whisper's
30-second windows one after another (the path every file took before); **parallel windows** — two
engines with a thread each sharing the job's windows (\`TRANSCRIBE_PARALLEL_WINDOWS=2\`,
benchmark 3); **batched** — one engine with both threads running faster-whisper's
\`BatchedInferencePipeline\`: voice activity detection cuts each window into speech stretches of at most
30 s, decoded \`WHISPER_BATCH_SIZE\` at a time (the size the worker chooses from the cores and free
memory). Same model, compute type, beam, windows, seam merge and guard (the run's own, below).
Reported: wall time, real-time factor, CPU seconds of the engines, their peak resident memory (summed
over the engine processes), WER against the script, and the 1-minute load average before and after
each pass: other work shared the cores, so wall times carry that load; CPU seconds do not.
The rule set in advance: the fastest mode whose WER is at most 0.5 points above sequential's
becomes the default for long files.`;
  const gpu = gpuSection(gpuResult);
  if (!result) return { markdown: `${intro}\n\n${notRecorded("batched decoding", "npm run bench:batched")}\n\n${gpu}`, summary: [] };
  const d = result.data;
  const sequential = (minutes: number) => d.rows.find((r) => r.minutes === minutes && r.mode === "sequential");
  const markdown = `${intro}

${provenance(result)} ${d.model}, ${d.computeType}, beam ${d.beamSize}, ${d.threads} threads on ${d.cores} cores, batch size
${d.batchSize}, windows of ${d.chunkSeconds} s overlapping by ${d.overlapSeconds} s.${d.complete ? "" : " **The run was cut short: only the passes below were measured.**"}

${table(
  ["file", "mode", "wall s", "RTF", "vs sequential", "CPU s", "peak RSS MiB", "WER", "WER vs sequential", "load (1 min) before → after"],
  d.rows.map((r) => {
    const base = sequential(r.minutes);
    return [
      `${num(r.minutes, 0)} min`,
      MODE_NAMES[r.mode],
      num(r.seconds, 1),
      num(r.rtf, 3),
      base ? `${num(base.seconds / r.seconds, 2)}×` : "—",
      num(r.cpuSeconds, 1),
      num(r.peakRssMb),
      pct(r.wer, 2),
      base ? `${r.wer - base.wer >= 0 ? "+" : ""}${num((r.wer - base.wer) * 100, 2)} pts` : "—",
      `${num(r.loadBefore, 2)} → ${num(r.loadAfter, 2)}`,
    ];
  }),
)}

Fastest within 0.5 WER points of sequential: ${d.fastest.map((f) => `${num(f.minutes, 0)} min — ${f.mode ?? "none"}${f.speedupOverSequential ? ` (${num(f.speedupOverSequential, 2)}× sequential)` : ""}`).join("; ")}.

${gpu}`;
  const summary = d.fastest.map((f) => ({
    benchmark: `3b. ${num(f.minutes, 0)}-minute file, fastest decoding`,
    figure: `${f.mode ?? "—"}${f.speedupOverSequential ? `, ${num(f.speedupOverSequential, 2)}× sequential` : ""}`,
    target: "WER ≤ sequential + 0.5 pts",
    met: f.mode !== undefined,
  }));
  return { markdown, summary };
}
