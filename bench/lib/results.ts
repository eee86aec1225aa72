import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
export const resultsDir = path.join(repoRoot, "bench", "results");

/** Where a benchmark's JSON goes: smoke runs never overwrite the recorded figures. */
export function resultPath(name: string, smoke: boolean): string {
  return smoke ? path.join(resultsDir, "smoke", `${name}.json`) : path.join(resultsDir, `${name}.json`);
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  platform: string;
  node: string;
  gitCommit: string;
  /** Git reported uncommitted changes: the figures belong to the commit plus those. */
  gitDirty: boolean;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
export const loadAverage = () => os.loadavg().map(round2) as [number, number, number];

export function machine(): Machine {
  const git = (...args: string[]) => {
    try {
      return execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return "";
    }
  };
  return {
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.type()} ${os.release()}`,
    node: process.version,
    gitCommit: git("rev-parse", "--short=12", "HEAD") || "unknown",
    gitDirty: git("status", "--porcelain", "--untracked-files=no") !== "",
  };
}

/**
 * The envelope every benchmark writes: what ran, where, when and under what load, so a
 * figure can be traced back to the machine and the command that produced it.
 */
export interface BenchResult<T> {
  benchmark: string;
  smoke: boolean;
  date: string;
  command: string;
  machine: Machine;
  loadAverage: { before: [number, number, number]; after: [number, number, number] };
  durationSeconds: number;
  data: T;
}

/**
 * Starts the clock and the load reading for one benchmark; `finish` writes its JSON. The
 * commit and whether the tree was dirty are read now, at the start: the code that ran is
 * the code checked out when it began, whatever is committed while it runs.
 */
export function startRecording(benchmark: string, smoke: boolean, command = `npm run bench:${benchmark}${smoke ? " -- --smoke" : ""}`) {
  const before = loadAverage();
  const started = Date.now();
  const host = machine();
  return {
    async finish<T>(data: T): Promise<BenchResult<T>> {
      const result: BenchResult<T> = {
        benchmark,
        smoke,
        date: new Date(started).toISOString(),
        command,
        machine: host,
        loadAverage: { before, after: loadAverage() },
        durationSeconds: Math.round((Date.now() - started) / 1000),
        data,
      };
      const file = resultPath(benchmark, smoke);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`\nwritten to ${path.relative(process.cwd(), file)} (load average ${before.join(" ")} → ${result.loadAverage.after.join(" ")})`);
      return result;
    },
  };
}

/** `--smoke` on the command line, or BENCH_SMOKE=1 from the runner. */
export function isSmoke(argv: readonly string[] = process.argv): boolean {
  return argv.includes("--smoke") || process.env.BENCH_SMOKE === "1";
}
