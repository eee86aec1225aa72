/**
 * Benchmark: sequential vs parallel windows vs batched decoding (decision 0026).
 * The same files through the worker's local engine adapter (LocalTranscriber, the code a
 * worker runs for a job) three ways, one pass each, in one run:
 *   sequential — one engine, both threads, one 30-second stretch after another;
 *   parallel   — two engines with a thread each, a window each (TRANSCRIBE_PARALLEL_WINDOWS=2);
 *   batched    — one engine, both threads, VAD-cut stretches decoded in batches
 *                (WHISPER_BATCH_SIZE, the size the worker chooses from cores and memory).
 * Same windows (300 s, 5 s overlap), model, beam and compute type. Reported per file and
 * mode: wall time, RTF, CPU seconds, peak resident memory of the engine processes, WER
 * against the script, and the load average around each pass (the machine is shared).
 *
 *   npm run bench:batched                       (10 and 60 minutes, base)
 *   npm run bench:batched -- --smoke            (40 s in 20 s windows, tiny.en)
 *   tsx bench/transcription/batched.ts --minutes 10 --model tiny.en
 *   WHISPER_DEVICE=cuda npm run bench:batched -- --modes batched --model large-v3-turbo
 *
 * WHISPER_DEVICE (cpu or cuda, as the worker reads it) picks where the engines run, with
 * the worker's compute type for it (WHISPER_COMPUTE_TYPE, else int8 on cpu, float16 on
 * cuda); a cuda run writes bench/results/batched-gpu.json, so the CPU figures stay.
 */
import { availableParallelism, cpus, freemem } from "node:os";
import { parseArgs } from "node:util";
import { createLogger } from "@transcribe/platform";
import { chooseBatchSize } from "@transcribe/transcription/domain/decoding";
import { LocalTranscriber } from "@transcribe/transcription/engines/local/local-transcriber";
import { modelsDir, whisperPython } from "../lib/engine.js";
import { processTree, rss, treeCpu } from "../lib/proc.js";
import { isSmoke, loadAverage, startRecording } from "../lib/results.js";
import { speech } from "../lib/speech.js";
import { printTable, round } from "../lib/stats.js";
import { wordErrorRate } from "../lib/wer.js";

const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    model: { type: "string" },
    minutes: { type: "string" },
    modes: { type: "string" },
  },
});
const smoke = isSmoke();
const model = values.model ?? (smoke ? "tiny.en" : "base");
const lengths = (values.minutes ?? (smoke ? "" : "10,60")).split(",").filter(Boolean).map((m) => Number(m) * 60);
if (smoke) lengths.push(40);
const window = smoke ? { chunkSeconds: 20, overlapSeconds: 2 } : { chunkSeconds: 300, overlapSeconds: 5 };
const THREADS = 2;
const BEAM = 5;
const deviceVariable = process.env.WHISPER_DEVICE ?? "cpu";
if (deviceVariable !== "cpu" && deviceVariable !== "cuda") throw new Error(`WHISPER_DEVICE must be cpu or cuda, not ${deviceVariable}`);
const device: "cpu" | "cuda" = deviceVariable;
const computeType = process.env.WHISPER_COMPUTE_TYPE ?? (device === "cuda" ? "float16" : "int8");
// The worker's choice (LocalTranscriber.batchSizeFor): GPU memory is not the host's free memory.
const batchSize = chooseBatchSize(model, { device, threads: THREADS, freeMemoryBytes: device === "cuda" ? Number.MAX_SAFE_INTEGER : freemem() });
/** The GPU's figures are a result of their own (batched-gpu.json), read into the report's GPU table. */
const resultName = device === "cuda" ? "batched-gpu" : "batched";

export type Mode = "sequential" | "parallel" | "batched";
const modes = (values.modes ?? "sequential,parallel,batched").split(",") as Mode[];

function transcriber(mode: Mode): LocalTranscriber {
  return new LocalTranscriber({
    python: whisperPython,
    locations: { explicit: {}, modelsDir, dataModelsDir: "/nonexistent", allowDownload: false },
    computeType,
    device,
    threads: THREADS,
    beamSize: BEAM,
    ...window,
    chunkTimeFactor: 20,
    parallelWindows: mode === "parallel" ? 2 : 1,
    batchSize: mode === "batched" ? batchSize : 0,
    longFileSeconds: 0,
    logger: createLogger("bench", "warn"),
  });
}

/** Peak summed RSS of this process's descendants (the engine processes), sampled every 250 ms. */
function engineRss() {
  let peak = 0;
  const sample = () => {
    const total = processTree(process.pid)
      .filter((p) => p.pid !== process.pid)
      .reduce((sum, p) => sum + rss(p.pid), 0);
    peak = Math.max(peak, total);
  };
  const timer = setInterval(sample, 250);
  return {
    stop(): number {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** One measured case; bench/report/batched.ts reads these back from the results file. */
export interface Row {
  minutes: number;
  audioSeconds: number;
  mode: Mode;
  engines: number;
  batchSize: number;
  seconds: number;
  rtf: number;
  cpuSeconds: number;
  peakRssMb: number;
  wer: number;
  loadBefore: number;
  loadAfter: number;
}

async function main(): Promise<void> {
  const command = `${device === "cuda" ? "WHISPER_DEVICE=cuda " : ""}npm run bench:batched -- ${process.argv.slice(2).join(" ")}`.trim().replace(/ --$/, "");
  const recording = startRecording(resultName, smoke, command);
  console.log(
    `Batched decoding on ${device}: ${lengths.map((s) => `${s / 60} min`).join(" and ")}, ${model}, ${computeType}, beam ${BEAM}, ${THREADS} threads, ` +
      `windows ${window.chunkSeconds} s / ${window.overlapSeconds} s; batch size ${batchSize} (chosen for ${availableParallelism()} cores, ${round(freemem() / 2 ** 30, 1)} GiB free); one pass per mode`,
  );
  const rows: Row[] = [];
  const warm = speech(smoke ? 3 : 10);
  for (const seconds of lengths) {
    const audio = speech(seconds);
    for (const mode of modes) {
      const t = transcriber(mode);
      try {
        const request = {
          durationSeconds: audio.seconds,
          engineModel: model,
          settings: { language: "en", translateToEn: false, temperature: 0 },
          signal: new AbortController().signal,
        };
        // Engines started and the model loaded (in both engines for parallel), as in a worker that has run a job.
        await t.transcribe({ ...request, audioPath: warm.file, durationSeconds: warm.seconds });
        if (mode === "parallel") {
          const two = speech(window.chunkSeconds + 3 * window.overlapSeconds);
          await t.transcribe({ ...request, audioPath: two.file, durationSeconds: two.seconds });
        }
        const loadBefore = loadAverage()[0];
        const memory = engineRss();
        const cpu = treeCpu(process.pid);
        const started = performance.now();
        const result = await t.transcribe({ ...request, audioPath: audio.file });
        const elapsed = (performance.now() - started) / 1000;
        const cpuSeconds = cpu.stop();
        const peak = memory.stop();
        const row: Row = {
          minutes: round(audio.seconds / 60, 1),
          audioSeconds: round(audio.seconds, 1),
          mode,
          engines: mode === "parallel" ? 2 : 1,
          batchSize: mode === "batched" ? batchSize : 0,
          seconds: round(elapsed, 1),
          rtf: round(elapsed / audio.seconds, 4),
          cpuSeconds: round(cpuSeconds, 1),
          peakRssMb: Math.round(peak / 2 ** 20),
          wer: round(wordErrorRate(audio.script, result.text).wer, 4),
          loadBefore,
          loadAfter: loadAverage()[0],
        };
        rows.push(row);
        console.log(
          `  ${row.minutes} min, ${mode}: ${row.seconds} s (RTF ${row.rtf}), CPU ${row.cpuSeconds} s, peak RSS ${row.peakRssMb} MiB, ` +
            `WER ${round(row.wer * 100, 2)}%, load ${row.loadBefore} → ${row.loadAfter}`,
        );
      } finally {
        await t.close();
      }
      // Written after every pass: a run cut short keeps what it measured.
      await recording.finish(summary(rows, false));
    }
  }
  printTable(
    rows.map((r) => ({
      file: `${r.minutes} min`,
      mode: r.mode,
      "wall s": r.seconds,
      RTF: r.rtf,
      "CPU s": r.cpuSeconds,
      "peak RSS MiB": r.peakRssMb,
      "WER %": round(r.wer * 100, 2),
      load: `${r.loadBefore}→${r.loadAfter}`,
    })),
  );
  const final = summary(rows, true);
  console.log(`fastest within 0.5 WER points of sequential: ${JSON.stringify(final.fastest)}`);
  await recording.finish(final);
}

/** Per file, the fastest mode whose WER is at most 0.5 points above sequential's. */
function summary(rows: Row[], complete: boolean) {
  const files = [...new Set(rows.map((r) => r.minutes))];
  const fastest = files.map((minutes) => {
    const mine = rows.filter((r) => r.minutes === minutes);
    const baseline = mine.find((r) => r.mode === "sequential");
    const eligible = mine.filter((r) => !baseline || r.wer - baseline.wer <= 0.005);
    const best = eligible.sort((a, b) => a.seconds - b.seconds)[0];
    return {
      minutes,
      mode: best?.mode,
      speedupOverSequential: best && baseline ? round(baseline.seconds / best.seconds, 2) : undefined,
    };
  });
  return {
    complete,
    model,
    device,
    computeType,
    beamSize: BEAM,
    threads: THREADS,
    cores: cpus().length,
    batchSize,
    ...window,
    rows,
    fastest,
  };
}

await main();
