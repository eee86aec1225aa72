/**
 * Benchmark 2, engine speed: the speech engine alone (faster-whisper called directly,
 * bench/lib/bare_whisper.py, with the product's decode options: int8, beam 5, word
 * timestamps, VAD) on English speech with a known script. For the default local model
 * (base) with 1 and 2 threads, tiny.en likewise, and the largest model installed that
 * loads: real-time factor (processing seconds / audio seconds, median of the runs), CPU
 * seconds per audio second, peak resident memory, import and model load time, WER.
 * Each configuration runs in a fresh process, so its memory and load time are its own.
 *
 *   npm run bench:engine                (30 s of speech, 3 runs per configuration)
 *   npm run bench:engine -- --smoke     (3 s, tiny.en only, 1 run)
 */
import { parseArgs } from "node:util";
import { BareEngine, installedModels } from "../lib/engine.js";
import { isSmoke, startRecording } from "../lib/results.js";
import { speech } from "../lib/speech.js";
import { median, printTable, round } from "../lib/stats.js";
import { wordErrorRate } from "../lib/wer.js";

const { values } = parseArgs({
  options: { smoke: { type: "boolean", default: false }, runs: { type: "string" }, seconds: { type: "string" } },
});
const smoke = isSmoke();
const runs = Number(values.runs ?? (smoke ? 1 : 3));
const seconds = Number(values.seconds ?? (smoke ? 3 : 30));
const DEFAULT_MODEL = "base";

interface Row {
  model: string;
  role: string;
  threads: number;
  importSeconds: number;
  loadSeconds: number;
  rtf: number;
  rtfs: number[];
  cpuPerAudioSecond: number;
  peakRssMb: number;
  wer: number;
}

async function measure(model: string, role: string, threads: number, audio: ReturnType<typeof speech>, warm: ReturnType<typeof speech>): Promise<Row> {
  const engine = await BareEngine.start({ model, threads });
  try {
    // The first call also loads the voice-activity model and warms the caches.
    await engine.transcribe(warm.file);
    const measured = [];
    for (let run = 0; run < runs; run++) measured.push(await engine.transcribe(audio.file));
    const row: Row = {
      model,
      role,
      threads,
      importSeconds: round(engine.importSeconds, 2),
      loadSeconds: round(engine.loadSeconds, 2),
      rtf: round(median(measured.map((m) => m.seconds / audio.seconds)), 3),
      rtfs: measured.map((m) => round(m.seconds / audio.seconds, 3)),
      cpuPerAudioSecond: round(median(measured.map((m) => m.cpu_seconds / audio.seconds)), 3),
      peakRssMb: Math.round(Math.max(...measured.map((m) => m.max_rss_mb))),
      wer: round(wordErrorRate(audio.script, measured.at(-1)!.text).wer, 4),
    };
    console.log(`  ${model}, ${threads} thread(s): RTF ${row.rtf} [${row.rtfs.join(", ")}], load ${row.loadSeconds} s, peak RSS ${row.peakRssMb} MB`);
    return row;
  } finally {
    await engine.close();
  }
}

async function main(): Promise<void> {
  const recording = startRecording("engine", smoke);
  const audio = speech(seconds);
  const warm = speech(3);
  const installed = installedModels();
  console.log(`Engine speed: ${round(audio.seconds, 1)} s of speech, int8, beam 5, ${runs} run(s) per configuration`);
  console.log(`installed models: ${installed.map((m) => `${m.name} (${Math.round(m.bytes / 2 ** 20)} MB)`).join(", ")}`);

  const rows: Row[] = [];
  const failures: Array<{ model: string; error: string }> = [];
  const plan: Array<[string, string, number]> = smoke
    ? [["tiny.en", "fastest", 2]]
    : [
        [DEFAULT_MODEL, "default", 1],
        [DEFAULT_MODEL, "default", 2],
        ["tiny.en", "fastest", 1],
        ["tiny.en", "fastest", 2],
      ];
  for (const [model, role, threads] of plan) rows.push(await measure(model, role, threads, audio, warm));
  if (!smoke) {
    // The largest weights installed that load (a truncated download fails here, and the next is tried).
    for (const candidate of installed) {
      if (candidate.name === DEFAULT_MODEL || candidate.name === "tiny.en") {
        break;
      }
      try {
        rows.push(await measure(candidate.name, "largest installed", 2, audio, warm));
        break;
      } catch (error) {
        failures.push({ model: candidate.name, error: (error as Error).message.split("\n").slice(-2).join(" ").slice(0, 300) });
      }
    }
  }
  const largest = rows.find((r) => r.role === "largest installed")?.model ?? (smoke ? "tiny.en" : DEFAULT_MODEL);
  printTable(
    rows.map((r) => ({
      model: r.model,
      threads: r.threads,
      RTF: r.rtf,
      "CPU s / audio s": r.cpuPerAudioSecond,
      "load s": r.loadSeconds,
      "import s": r.importSeconds,
      "peak RSS MB": r.peakRssMb,
      "WER %": round(r.wer * 100, 1),
    })),
  );
  console.log(`largest model installed that loads: ${largest}${failures.length ? `; failed to load: ${failures.map((f) => f.model).join(", ")}` : ""}`);
  await recording.finish({
    audioSeconds: round(audio.seconds, 1),
    computeType: "int8",
    beamSize: 5,
    runs,
    installed: installed.map((m) => ({ name: m.name, mb: Math.round(m.bytes / 2 ** 20) })),
    largest,
    failures,
    rows,
  });
}

await main();
