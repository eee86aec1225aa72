import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * Resident memory of every process of the product, from /proc (Linux). Node services,
 * the launcher and the mail catcher by their pid files; the Whisper engine as the
 * worker's child; PostgreSQL as all of its processes together (proportional set size,
 * so the shared buffers are counted once).
 */
export interface Sample {
  at: number;
  mb: number;
}

export interface ProcessMemory {
  name: string;
  samples: Sample[];
  /** Distinct pids seen: more than one means the process was started again (a crash). */
  pids: Set<number>;
}

const kb = (text: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);

async function rssMb(pid: number): Promise<number | undefined> {
  try {
    return kb(await readFile(`/proc/${pid}/status`, "utf8"), "VmRSS") / 1024;
  } catch {
    return undefined;
  }
}

async function pssMb(pid: number): Promise<number> {
  try {
    return kb(await readFile(`/proc/${pid}/smaps_rollup`, "utf8"), "Pss") / 1024;
  } catch {
    return 0;
  }
}

async function children(pid: number): Promise<number[]> {
  try {
    return (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8")).trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function pidFrom(file: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(file, "utf8")).split("\n")[0]!.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export class MemorySampler {
  readonly processes = new Map<string, ProcessMemory>();
  #timer: NodeJS.Timeout | undefined;
  readonly #started = Date.now();

  constructor(
    private readonly dataDir: string,
    private readonly launcherPid: number,
  ) {}

  start(everyMs: number): void {
    void this.sample();
    this.#timer = setInterval(() => void this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async sample(): Promise<void> {
    const at = (Date.now() - this.#started) / 1000;
    const record = (name: string, pid: number, mb: number | undefined) => {
      if (mb === undefined || mb === 0) return;
      const entry = this.processes.get(name) ?? { name, samples: [], pids: new Set<number>() };
      entry.samples.push({ at, mb });
      entry.pids.add(pid);
      this.processes.set(name, entry);
    };
    record("launcher", this.launcherPid, await rssMb(this.launcherPid));
    const runDir = path.join(this.dataDir, "run");
    for (const file of (await readdir(runDir).catch(() => [])).filter((f) => f.endsWith(".pid"))) {
      const name = file.slice(0, -4);
      const pid = await pidFrom(path.join(runDir, file));
      if (!pid) continue;
      record(name, pid, await rssMb(pid));
      if (name === "transcription-worker") {
        // The engine may be started again by the worker (after a cancelled job): counted
        // as the worker's children, whatever their pids.
        let engine = 0;
        for (const child of await children(pid)) engine += (await rssMb(child)) ?? 0;
        record("whisper engine (worker's children)", pid, engine);
      }
    }
    const postmaster = await pidFrom(path.join(this.dataDir, "postgres", "postmaster.pid"));
    if (postmaster) {
      let total = await pssMb(postmaster);
      for (const child of await children(postmaster)) total += await pssMb(child);
      record("postgres (all processes, PSS)", postmaster, total);
    }
  }
}

export interface MemoryVerdict {
  name: string;
  /** Median of the first samples after warm-up. */
  warmMb: number;
  /** Median of the last samples. */
  endMb: number;
  peakMb: number;
  growthMb: number;
  /** Least-squares slope after warm-up. */
  slopeMbPerMin: number;
  restarts: number;
  flat: boolean;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * Flat: between the end of warm-up and the end of the load (not the quieter minutes
 * while the last rounds finish), the end level is at most `maxGrowthMb` above the warm
 * level (GC keeps a Node heap moving by tens of MB, so one sample proves nothing; medians
 * of five do), and the process was never started again.
 */
export function judgeMemory(
  processes: Iterable<ProcessMemory>,
  window: { fromSeconds: number; untilSeconds: number },
  maxGrowthMb: number,
): MemoryVerdict[] {
  const round = (n: number) => Math.round(n * 10) / 10;
  return [...processes].map((p) => {
    const after = p.samples.filter((s) => s.at >= window.fromSeconds && s.at <= window.untilSeconds);
    const edge = Math.max(3, Math.min(5, Math.floor(after.length / 4)));
    const warmMb = median(after.slice(0, edge).map((s) => s.mb));
    const endMb = median(after.slice(-edge).map((s) => s.mb));
    const n = after.length;
    const meanT = after.reduce((a, s) => a + s.at, 0) / Math.max(1, n);
    const meanM = after.reduce((a, s) => a + s.mb, 0) / Math.max(1, n);
    const cov = after.reduce((a, s) => a + (s.at - meanT) * (s.mb - meanM), 0);
    const varT = after.reduce((a, s) => a + (s.at - meanT) ** 2, 0);
    const slope = varT > 0 ? (cov / varT) * 60 : 0;
    const restarts = p.pids.size - 1;
    return {
      name: p.name,
      warmMb: round(warmMb),
      endMb: round(endMb),
      peakMb: round(Math.max(...p.samples.map((s) => s.mb))),
      growthMb: round(endMb - warmMb),
      slopeMbPerMin: round(slope),
      restarts,
      flat: n >= 2 && endMb - warmMb <= maxGrowthMb && restarts === 0,
    };
  });
}
