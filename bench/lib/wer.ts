/** Lower-cased words without punctuation: how reference and transcript are compared. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter(Boolean);
}

export type EditOp = "=" | "s" | "i" | "d";

/** Word-level Levenshtein alignment of a transcript (h) against its reference (r), as operations. */
export function align(r: readonly string[], h: readonly string[]): EditOp[] {
  const d: number[][] = Array.from({ length: r.length + 1 }, (_, i) => {
    const row = new Array<number>(h.length + 1).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j <= h.length; j++) d[0]![j] = j;
  for (let i = 1; i <= r.length; i++) {
    for (let j = 1; j <= h.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
  }
  const ops: EditOp[] = [];
  let i = r.length;
  let j = h.length;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1)) {
      ops.push(r[i - 1] === h[j - 1] ? "=" : "s");
      i--;
      j--;
    } else if (j > 0 && d[i]![j] === d[i]![j - 1]! + 1) {
      ops.push("i");
      j--;
    } else {
      ops.push("d");
      i--;
    }
  }
  return ops.reverse();
}

export interface WerReport {
  wer: number;
  referenceWords: number;
  substitutions: number;
  insertions: number;
  deletions: number;
}

export function wordErrorRate(reference: string, transcript: string): WerReport {
  const r = words(reference);
  const ops = align(r, words(transcript));
  const count = (k: EditOp) => ops.filter((o) => o === k).length;
  const [substitutions, insertions, deletions] = [count("s"), count("i"), count("d")];
  return { wer: (substitutions + insertions + deletions) / Math.max(1, r.length), referenceWords: r.length, substitutions, insertions, deletions };
}
