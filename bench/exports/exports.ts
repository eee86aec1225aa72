/**
 * Export rendering benchmark: a synthetic two-hour transcript (1,500 segments, 20,000
 * words with word timings) rendered to every format, each format in a fresh process so
 * its memory figures are its own.
 *
 * Benchmark 6 of `npm run bench`.
 *
 *   npm run bench:exports                   # full run, writes bench/results/exports.json
 *   npm run bench:exports -- --smoke        # tiny input, 1 run: checks the script works (bench/results/smoke/)
 *   npm run bench:exports -w services/export   # the same from the export workspace
 *   tsx bench/exports/exports.ts --runs 9 --formats pdf,docx --workloads english
 *
 * Per format: the first render in a process (cold: code not yet compiled, font tables
 * not yet parsed), then `--runs` renders each of a different transcript (same size and
 * shape, new seed, so caches keyed by word see new words as real transcripts do);
 * the median, min and max wall time and CPU time of those; output size; peak RSS of the
 * process (fonts loaded, before the first render, and at the end); the largest heap in
 * use right after a render, with its output still referenced. Target: median under
 * 1.5 s for every format.
 */
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  exportFormats,
  loadFontSet,
  renderExport,
  type ExportFormat,
  type FontSet,
} from "@transcribe/export/domain";
import { syntheticTranscript, type SyntheticOptions } from "./transcript.js";
import { isSmoke, startRecording } from "../lib/results.js";

const TARGET_MS = 1500;
const repoRoot = path.resolve(import.meta.dirname, "../..");
const workloads = ["english", "multilingual"] as const;
type Workload = (typeof workloads)[number];

const SIZES = {
  full: { segments: 1500, words: 20_000, durationSeconds: 7200 },
  smoke: { segments: 20, words: 200, durationSeconds: 120 },
} satisfies Record<string, Omit<SyntheticOptions, "seed" | "multilingual">>;

interface ChildResult {
  format: ExportFormat;
  workload: Workload;
  segments: number;
  words: number;
  fontLoadMs: number;
  coldMs: number;
  runs: number[];
  cpuRuns: number[];
  bytes: number;
  rssAfterFontsMb: number;
  peakRssMb: number;
  peakHeapAfterRenderMb: number;
}

const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    runs: { type: "string" },
    formats: { type: "string" },
    workloads: { type: "string" },
    child: { type: "boolean", default: false },
    format: { type: "string" },
    workload: { type: "string" },
    out: { type: "string" },
  },
});

async function main(): Promise<void> {
  const smoke = isSmoke();
  const recording = startRecording("exports", smoke);
  const runs = Number(values.runs ?? (smoke ? 1 : 7));
  const formats = (values.formats?.split(",") ?? exportFormats) as ExportFormat[];
  const selected = (values.workloads?.split(",") ?? (smoke ? ["english", "multilingual"] : workloads)) as Workload[];
  const size = smoke ? SIZES.smoke : SIZES.full;
  const machine = {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((load) => Math.round(load * 100) / 100),
  };
  console.log(
    `Export rendering: ${size.segments} segments, ${size.words} words, ${size.durationSeconds / 60} min of audio; ` +
      `${runs} run(s) per format after a cold one`,
  );
  console.log(`${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, Node ${machine.node}, load ${machine.loadAverageAtStart.join(" ")}\n`);

  const results: ChildResult[] = [];
  for (const workload of selected) {
    for (const format of formats) {
      results.push(await runChild(format, workload, runs, smoke));
    }
  }

  const rows = results.map((r) => {
    const median = percentile(r.runs, 0.5);
    return {
      workload: r.workload,
      format: r.format,
      medianMs: round(median),
      minMs: round(Math.min(...r.runs)),
      maxMs: round(Math.max(...r.runs)),
      medianCpuMs: round(percentile(r.cpuRuns, 0.5)),
      coldMs: round(r.coldMs),
      outputKb: round(r.bytes / 1024),
      rssAfterFontsMb: r.rssAfterFontsMb,
      peakRssMb: r.peakRssMb,
      peakHeapAfterRenderMb: r.peakHeapAfterRenderMb,
      targetMet: median < TARGET_MS,
    };
  });
  printTable(rows);
  const fontLoadMs = round(percentile(results.map((r) => r.fontLoadMs), 0.5));
  console.log(`\nfont discovery and loading (once per process, not in the times above): ${fontLoadMs} ms`);
  console.log(rows.every((row) => row.targetMet) ? `every median is under ${TARGET_MS} ms` : `NOT MET: ${rows.filter((r) => !r.targetMet).map((r) => `${r.workload}/${r.format}`).join(", ")}`);

  const data = {
    input: { ...size, wordTimings: true, includeTimestamps: true },
    runsPerFormat: runs,
    targetMs: TARGET_MS,
    fontLoadMs,
    results: rows.map((row, index) => ({ ...row, runsMs: results[index]!.runs.map(round), cpuRunsMs: results[index]!.cpuRuns.map(round) })),
  };
  if (values.out) {
    await mkdir(path.dirname(values.out), { recursive: true });
    await writeFile(values.out, `${JSON.stringify({ benchmark: "exports", date: new Date().toISOString(), machine, ...data }, null, 2)}\n`);
  } else {
    await recording.finish(data);
  }
  if (smoke && results.some((r) => r.bytes === 0)) process.exit(1);
}

function runChild(format: ExportFormat, workload: Workload, runs: number, smoke: boolean): Promise<ChildResult> {
  const args = ["--expose-gc", "--import", "tsx", import.meta.filename, "--child", "--format", format, "--workload", workload, "--runs", String(runs)];
  if (smoke) args.push("--smoke");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${workload}/${format}: benchmark process exited with ${code}`));
      try {
        resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as ChildResult);
      } catch (error) {
        reject(error);
      }
    });
  });
}

async function child(): Promise<ChildResult> {
  const format = values.format as ExportFormat;
  const workload = values.workload as Workload;
  const runs = Number(values.runs);
  const size = values.smoke ? SIZES.smoke : SIZES.full;
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

  let started = performance.now();
  const fonts: FontSet = loadFontSet();
  const fontLoadMs = performance.now() - started;
  const transcript = (seed: number) => syntheticTranscript({ ...size, seed, multilingual: workload === "multilingual" });
  gc();
  const rssAfterFontsMb = mb(process.memoryUsage().rss);

  let peakHeap = 0;
  let bytes = 0;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let index = 0; index <= runs; index++) {
    const input = transcript(index + 1);
    gc();
    const cpuBefore = process.cpuUsage();
    started = performance.now();
    const rendered = await renderExport(input, format, { includeTimestamps: true }, { fonts });
    const elapsed = performance.now() - started;
    const cpuUsed = process.cpuUsage(cpuBefore);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    bytes = rendered.data.length;
    times.push(elapsed);
    cpu.push((cpuUsed.user + cpuUsed.system) / 1000);
    if (index === 0 && rendered.missingGlyphs.length > 0) {
      process.stderr.write(`${workload}/${format}: no glyph for ${rendered.missingGlyphs.join("")}\n`);
    }
  }
  return {
    format,
    workload,
    segments: size.segments,
    words: size.words,
    fontLoadMs,
    coldMs: times[0]!,
    runs: times.slice(1),
    cpuRuns: cpu.slice(1),
    bytes,
    rssAfterFontsMb,
    // maxRSS is in kilobytes.
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    peakHeapAfterRenderMb: mb(peakHeap),
  };
}

function printTable(rows: Array<Record<string, string | number | boolean>>): void {
  const headers: Array<[string, string]> = [
    ["workload", "workload"],
    ["format", "format"],
    ["medianMs", "median ms"],
    ["minMs", "min"],
    ["maxMs", "max"],
    ["medianCpuMs", "cpu ms"],
    ["coldMs", "cold ms"],
    ["outputKb", "output KB"],
    ["rssAfterFontsMb", "RSS before MB"],
    ["peakRssMb", "peak RSS MB"],
    ["peakHeapAfterRenderMb", "heap MB"],
    ["targetMet", "< 1.5 s"],
  ];
  const cells = rows.map((row) => headers.map(([key]) => (typeof row[key] === "boolean" ? (row[key] ? "yes" : "NO") : String(row[key]))));
  const widths = headers.map(([, title], i) => Math.max(title.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (i < 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join("  ");
  console.log(line(headers.map(([, title]) => title)));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of cells) console.log(line(row));
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = (sorted.length - 1) * p;
  const low = Math.floor(index);
  const high = Math.ceil(index);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (index - low);
}

const round = (value: number) => Math.round(value * 10) / 10;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

// Last, so every declaration above is initialised when it runs.
if (values.child) {
  process.stdout.write(`${JSON.stringify(await child())}\n`);
} else {
  await main();
}
