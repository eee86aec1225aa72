/**
 * Benchmark 3, parallel long audio: one 10-minute file through the worker's local engine
 * adapter (LocalTranscriber, the code a worker runs for a job) with its windows heard
 * one after another by one engine process using both cores, and side by side by two
 * engine processes with a core each (TRANSCRIBE_PARALLEL_WINDOWS=2). Same windows
 * (300 s, 5 s overlap), model, beam and compute type; reported: wall time, speedup pair
 * by pair, CPU seconds, and the word error rate of each against the script.
 *
 *   npm run bench:parallel                  (10 min, tiny.en, 3 pairs)
 *   npm run bench:parallel -- --smoke       (30 s in 12 s windows, 1 pair)
 *   tsx bench/transcription/parallel.ts --model base --runs 2
 *
 * What it does not measure: the rest of the job (upload, media, queue), which is the
 * same either way and measured by the pipeline-overhead benchmark.
 */
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { createLogger } from "@transcribe/platform";
import { LocalTranscriber } from "@transcribe/transcription/engines/local/local-transcriber";
import { modelsDir, whisperPython } from "../lib/engine.js";
import { treeCpu } from "../lib/proc.js";
import { isSmoke, startRecording } from "../lib/results.js";
import { speech } from "../lib/speech.js";
import { median, printTable, round } from "../lib/stats.js";
import { wordErrorRate } from "../lib/wer.js";

const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    runs: { type: "string" },
    model: { type: "string", default: "tiny.en" },
    seconds: { type: "string" },
  },
});
const smoke = isSmoke();
const runs = Number(values.runs ?? (smoke ? 1 : 3));
const seconds = Number(values.seconds ?? (smoke ? 30 : 600));
const window = smoke ? { chunkSeconds: 12, overlapSeconds: 2 } : { chunkSeconds: 300, overlapSeconds: 5 };
const THREADS = 2;

function transcriber(parallelWindows: number): LocalTranscriber {
  return new LocalTranscriber({
    python: whisperPython,
    locations: { explicit: {}, modelsDir, dataModelsDir: "/nonexistent", allowDownload: false },
    computeType: "int8",
    threads: THREADS,
    beamSize: 5,
    ...window,
    chunkTimeFactor: 20,
    parallelWindows,
    logger: createLogger("bench", "warn"),
  });
}

async function main(): Promise<void> {
  const recording = startRecording("parallel", smoke);
  const audio = speech(seconds);
  console.log(
    `Parallel long audio: ${round(audio.seconds)} s, ${values.model}, int8, beam 5, windows ${window.chunkSeconds} s / ${window.overlapSeconds} s overlap; ` +
      `1 engine × ${THREADS} threads vs 2 engines × ${THREADS / 2} thread; ${runs} pair(s)`,
  );
  const setups = [
    { name: "1 engine", engines: 1, transcriber: transcriber(1) },
    { name: "2 engines", engines: 2, transcriber: transcriber(2) },
  ];
  const request = (onChunk: () => Promise<void>) => ({
    audioPath: audio.file,
    durationSeconds: audio.seconds,
    engineModel: values.model!,
    settings: { language: "en", translateToEn: false, temperature: 0 },
    signal: new AbortController().signal,
    onChunk,
  });
  try {
    // Start the engines and load the model in each, as a worker has done before its first long file.
    const warm = speech(smoke ? 3 : 10);
    for (const setup of setups) {
      await setup.transcriber.transcribe({ ...request(async () => {}), audioPath: warm.file, durationSeconds: warm.seconds });
      if (setup.engines > 1) {
        // A file of two windows (the last must outlast twice the overlap), so the second engine loads its model too.
        const two = speech(window.chunkSeconds + 3 * window.overlapSeconds);
        await setup.transcriber.transcribe({ ...request(async () => {}), audioPath: two.file, durationSeconds: two.seconds });
      }
    }

    const measured: Array<{ run: number; setup: string; seconds: number; cpuSeconds: number; windows: number; wer: number }> = [];
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? setups : [...setups].reverse();
      for (const setup of order) {
        let windows = 0;
        const cpu = treeCpu(process.pid);
        const started = performance.now();
        const result = await setup.transcriber.transcribe(request(async () => void windows++));
        const elapsed = (performance.now() - started) / 1000;
        const cpuSeconds = cpu.stop();
        const wer = wordErrorRate(audio.script, result.text).wer;
        measured.push({ run, setup: setup.name, seconds: elapsed, cpuSeconds, windows, wer });
        console.log(`  pair ${run + 1}, ${setup.name}: ${round(elapsed, 2)} s (CPU ${round(cpuSeconds, 1)} s), ${windows} windows, WER ${round(wer * 100, 1)}%`);
      }
    }

    const of = (setup: string) => measured.filter((m) => m.setup === setup);
    const speedups = Array.from({ length: runs }, (_, run) => {
      const one = measured.find((m) => m.run === run && m.setup === "1 engine")!;
      const two = measured.find((m) => m.run === run && m.setup === "2 engines")!;
      return one.seconds / two.seconds;
    });
    const rows = setups.map((setup) => {
      const mine = of(setup.name);
      const secondsMedian = median(mine.map((m) => m.seconds));
      return {
        setup: setup.name,
        threadsPerEngine: THREADS / setup.engines,
        windows: mine[0]!.windows,
        seconds: round(secondsMedian, 2),
        rtf: round(secondsMedian / audio.seconds, 3),
        cpuSeconds: round(median(mine.map((m) => m.cpuSeconds)), 1),
        wer: round(median(mine.map((m) => m.wer)), 4),
      };
    });
    const summary = {
      speedup: round(median(speedups), 3),
      speedups: speedups.map((s) => round(s, 3)),
      werChangePoints: round((rows[1]!.wer - rows[0]!.wer) * 100, 2),
    };
    printTable(
      rows.map((r) => ({
        setup: r.setup,
        "threads each": r.threadsPerEngine,
        windows: r.windows,
        "wall s (median)": r.seconds,
        RTF: r.rtf,
        "CPU s": r.cpuSeconds,
        "WER %": round(r.wer * 100, 2),
      })),
    );
    console.log(`speedup (pair by pair, median): ${summary.speedup}× [${summary.speedups.join(", ")}]; WER change ${summary.werChangePoints} points`);
    await recording.finish({
      audioSeconds: round(audio.seconds, 1),
      model: values.model,
      computeType: "int8",
      beamSize: 5,
      threads: THREADS,
      cores: cpus().length,
      ...window,
      runs,
      rows,
      ...summary,
    });
  } finally {
    await Promise.all(setups.map((s) => s.transcriber.close()));
  }
}

await main();
