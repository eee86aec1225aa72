import { readdirSync, readFileSync } from "node:fs";

/*
 * Process figures from Linux's /proc: resident memory, and CPU time of a whole process
 * tree (a benchmark on a machine shared with other work reads CPU seconds beside wall
 * seconds, because CPU time does not grow when other processes compete for the cores).
 */

/** Resident set size in bytes (0 once the process is gone). */
export function rss(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Samples the resident memory of some processes until stopped; keeps each one's peak. */
export function rssSampler(pids: Record<string, number>, intervalMs = 20) {
  const peaks = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, rss(pid)]));
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) peaks[name] = Math.max(peaks[name]!, rss(pid));
  }, intervalMs);
  return {
    stop(): Record<string, number> {
      clearInterval(timer);
      return { ...peaks };
    },
  };
}

const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks: its own CPU and that of its reaped children. */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces; fields follow the last ')'.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const num = (i: number) => Number(fields[i]);
    return { pid, ppid: num(1), ticks: num(11) + num(12) + num(13) + num(14) };
  } catch {
    return undefined;
  }
}

/** The process and all its descendants, as they are now. */
export function processTree(root: number): ProcStat[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== undefined);
  const children = new Map<number, ProcStat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const tree: ProcStat[] = [];
  const queue = all.filter((s) => s.pid === root);
  while (queue.length > 0) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return tree;
}

/** A short name for a process of the product: its service, PostgreSQL, the speech engine, or its command. */
export function processName(pid: number): string {
  let cmdline = "";
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "gone";
  }
  const service = /services\/([a-z-]+)\/src\/(main|worker)\.ts/.exec(cmdline);
  if (service) return service[2] === "worker" ? `${service[1]}-worker` : service[1]!;
  if (cmdline.includes("whisper_engine.py")) return "whisper engine";
  if (cmdline.includes("deploy/embedded/src/main.ts")) return "launcher";
  if (cmdline.includes("mail-catcher")) return "mail catcher";
  if (/postgres/.test(cmdline)) return "postgresql";
  return cmdline.split(" ")[0]!.split("/").at(-1) || "other";
}

/**
 * CPU seconds a process tree used between `start()` and `stop()`: the growth of its
 * processes' own and reaped children's times. Processes born and reaped in between are
 * counted through their parent; a process that ends in between loses its last moments.
 */
export function treeCpu(root: number) {
  const before = new Map(processTree(root).map((s) => [s.pid, s.ticks]));
  const delta = () => processTree(root).map((s) => ({ pid: s.pid, seconds: (s.ticks - (before.get(s.pid) ?? 0)) / TICKS_PER_SECOND }));
  return {
    stop(): number {
      return delta().reduce((sum, d) => sum + d.seconds, 0);
    },
    /** The same, by process name (processes of one name summed), largest first. */
    byProcess(): Array<{ name: string; seconds: number }> {
      const sums = new Map<string, number>();
      for (const d of delta()) sums.set(processName(d.pid), (sums.get(processName(d.pid)) ?? 0) + d.seconds);
      return [...sums].map(([name, seconds]) => ({ name, seconds })).sort((a, b) => b.seconds - a.seconds);
    },
  };
}
