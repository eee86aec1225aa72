/**
 * Runs every benchmark in sequence, each in its own process (as `npm run bench:<name>`
 * would), then rewrites docs/benchmarks.md from the results.
 *
 *   npm run bench                        all of them, then the document (~20 minutes on 2 cores)
 *   npm run bench -- --smoke             tiny inputs, a few minutes; results in bench/results/smoke/, the document untouched
 *   npm run bench -- --only api,upload   some of them (the document is still rewritten, from every recorded result)
 *
 * A benchmark that fails does not stop the others; the run then exits 1.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";
import { writeReport } from "./report/generate.js";
import { loadAverage, repoRoot } from "./lib/results.js";
import { printTable, round } from "./lib/stats.js";

/** In the order they run: the ones that need the machine quietest first. */
export const benchmarks = {
  startup: "bench/startup/startup.ts",
  engine: "bench/transcription/engine-speed.ts",
  overhead: "bench/pipeline/overhead.ts",
  parallel: "bench/transcription/parallel.ts",
  // About 25 minutes on 2 cores (an hour of audio three ways): --only leaves it out when time is short.
  batched: "bench/transcription/batched.ts",
  api: "bench/api/api.ts",
  upload: "bench/upload/upload.ts",
  exports: "bench/exports/exports.ts",
  search: "bench/search/search.ts",
  diarization: "bench/diarization/diarization.ts",
} as const;
type Name = keyof typeof benchmarks;

const { values } = parseArgs({ options: { smoke: { type: "boolean", default: false }, only: { type: "string" } } });
const smoke = values.smoke;
const selected = (values.only?.split(",") ?? Object.keys(benchmarks)) as Name[];
const unknown = selected.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")} (known: ${Object.keys(benchmarks).join(", ")})`);
  process.exit(2);
}

function run(name: Name): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, benchmarks[name])], {
      cwd: repoRoot,
      env: { ...process.env, ...(smoke ? { BENCH_SMOKE: "1" } : {}) },
      stdio: "inherit",
    });
    child.once("exit", (code, signal) => resolve(signal ? 128 : code));
  });
}

const started = performance.now();
const outcomes: Array<{ benchmark: string; seconds: number; load: string; outcome: string }> = [];
for (const name of selected) {
  console.log(`\n=== ${name}${smoke ? " (smoke)" : ""}: ${benchmarks[name]}  (load average ${loadAverage().join(" ")})\n`);
  const t0 = performance.now();
  const code = await run(name);
  outcomes.push({ benchmark: name, seconds: round((performance.now() - t0) / 1000, 0), load: loadAverage().join(" "), outcome: code === 0 ? "ok" : `FAILED (exit ${code})` });
}
console.log(`\n=== ${smoke ? "smoke run" : "benchmarks"} finished in ${round((performance.now() - started) / 60_000, 1)} min\n`);
printTable(outcomes);
if (!smoke) console.log(`\n${await writeReport()} rewritten from bench/results/*.json`);
if (outcomes.some((o) => o.outcome !== "ok")) process.exitCode = 1;
