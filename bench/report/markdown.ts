import type { BenchResult } from "../lib/results.js";

/** A Markdown table; cells are written as given (format numbers before). */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map((c) => String(c).replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(headers), `|${headers.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

/** Thousands separators, a fixed number of decimals. */
export function num(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "—";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export const pct = (fraction: number, digits = 1) => `${num(fraction * 100, digits)}%`;

export function verdict(met: boolean | null | undefined): string {
  if (met === null || met === undefined) return "no target";
  return met ? "**met**" : "**not met**";
}

/**
 * Where the figures come from: date, machine, commit, the command, and the load the
 * machine carried. A load above the core count means other work competed for the cores.
 */
export function provenance(result: BenchResult<unknown>): string {
  const m = result.machine;
  const [before, after] = [result.loadAverage.before[0], result.loadAverage.after[0]];
  const loaded = Math.max(before, after) > m.cores;
  const lines = [
    `Recorded ${result.date.slice(0, 16).replace("T", " ")} UTC with \`${result.command}\` (${num(result.durationSeconds)} s), ` +
      `commit ${m.gitCommit}${m.gitDirty ? " with uncommitted changes" : ""}; ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GiB, ` +
      `Node ${m.node.replace(/^v/, "")}. Load average (1 min) ${num(before, 1)} before, ${num(after, 1)} after.`,
  ];
  if (loaded) {
    lines.push(
      `*Recorded under load*: other work kept more than ${m.cores} processes runnable, so wall-clock figures are inflated and noisy ` +
        "(where there is a baseline, both sides were measured in turn under the same load; CPU seconds do not grow with the load).",
    );
  }
  return lines.join(" ");
}

export function notRecorded(name: string, command: string): string {
  return `*Not recorded yet: run \`${command}\` (or \`npm run bench\`) to fill this section (${name}).*`;
}
