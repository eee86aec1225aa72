/** Linear-interpolated percentile (p in [0, 1]); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = (sorted.length - 1) * p;
  const low = Math.floor(index);
  const high = Math.ceil(index);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (index - low);
}

export const median = (values: readonly number[]) => percentile(values, 0.5);

/** Rounds to `digits` decimals (figures in JSON and tables carry no false precision). */
export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Prints rows as an aligned text table: text columns left, numbers right. */
export function printTable(rows: ReadonlyArray<Record<string, string | number | boolean | null | undefined>>): void {
  if (rows.length === 0) return;
  const headers = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const text = (value: unknown) => (value === undefined || value === null ? "" : typeof value === "boolean" ? (value ? "yes" : "NO") : String(value));
  const cells = rows.map((row) => headers.map((h) => text(row[h])));
  const numeric = headers.map((h) => rows.every((row) => typeof row[h] === "number" || row[h] === undefined || row[h] === null));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join("  ");
  console.log(line(headers));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of cells) console.log(line(row));
}
