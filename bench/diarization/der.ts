/**
 * Diarization error rate as usually reported (NIST md-eval style, frame-based at 10 ms):
 * (missed speech + false alarm + speaker confusion) / reference speech, with a collar on
 * each side of every reference boundary left unscored, overlapping reference speech
 * scored, and the best one-to-one mapping of hypothesis to reference speakers.
 * The Python twin (der.py) scores the engine's raw output in the tuning runs.
 */
export interface Turn {
  start: number;
  end: number;
  speaker: string;
}

export interface DerResult {
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  referenceSpeakers: number;
  hypothesisSpeakers: number;
  scoredSeconds: number;
}

const STEP = 0.01;

export function diarizationErrorRate(reference: readonly Turn[], hypothesis: readonly Turn[], options: { collar?: number; uem?: [number, number] } = {}): DerResult {
  const collar = options.collar ?? 0.25;
  const end = options.uem?.[1] ?? Math.max(0, ...reference.map((t) => t.end), ...hypothesis.map((t) => t.end));
  const n = Math.ceil(end / STEP) + 1;
  const refNames = [...new Set(reference.map((t) => t.speaker))].sort();
  const hypNames = [...new Set(hypothesis.map((t) => t.speaker))].sort();
  const frames = (turns: readonly Turn[], names: string[]) => {
    const grid = names.map(() => new Uint8Array(n));
    for (const t of turns) grid[names.indexOf(t.speaker)]!.fill(1, Math.max(0, Math.round(t.start / STEP)), Math.min(n, Math.round(t.end / STEP)));
    return grid;
  };
  const ref = frames(reference, refNames);
  const hyp = frames(hypothesis, hypNames);
  const scored = new Uint8Array(n).fill(1);
  if (options.uem) {
    scored.fill(0, 0, Math.round(options.uem[0] / STEP));
    scored.fill(0, Math.round(options.uem[1] / STEP));
  }
  const c = Math.round(collar / STEP);
  for (const t of reference) for (const b of [Math.round(t.start / STEP), Math.round(t.end / STEP)]) scored.fill(0, Math.max(0, b - c), Math.min(n, b + c));
  const overlap = refNames.map(() => hypNames.map(() => 0));
  let total = 0;
  let missed = 0;
  let falseAlarm = 0;
  let matchable = 0;
  for (let f = 0; f < n; f++) {
    if (!scored[f]) continue;
    let nr = 0;
    let nh = 0;
    for (let i = 0; i < refNames.length; i++) nr += ref[i]![f]!;
    for (let j = 0; j < hypNames.length; j++) nh += hyp[j]![f]!;
    total += nr;
    missed += Math.max(0, nr - nh);
    falseAlarm += Math.max(0, nh - nr);
    matchable += Math.min(nr, nh);
    for (let i = 0; i < refNames.length; i++) if (ref[i]![f]) for (let j = 0; j < hypNames.length; j++) if (hyp[j]![f]) overlap[i]![j]!++;
  }
  const correct = bestMapping(overlap, refNames.length, hypNames.length);
  const confusion = matchable - correct;
  const denominator = Math.max(1, total);
  return {
    der: (missed + falseAlarm + confusion) / denominator,
    missed: missed / denominator,
    falseAlarm: falseAlarm / denominator,
    confusion: confusion / denominator,
    referenceSpeakers: refNames.length,
    hypothesisSpeakers: hypNames.length,
    scoredSeconds: total * STEP,
  };
}

/** The largest total overlap of a one-to-one mapping (exhaustive: meetings have few speakers). */
function bestMapping(overlap: number[][], nRef: number, nHyp: number): number {
  let best = 0;
  const used = new Array<boolean>(nHyp).fill(false);
  const walk = (i: number, sum: number) => {
    if (i === nRef) {
      best = Math.max(best, sum);
      return;
    }
    walk(i + 1, sum); // this reference speaker mapped to nobody
    for (let j = 0; j < nHyp; j++) {
      if (used[j]) continue;
      used[j] = true;
      walk(i + 1, sum + overlap[i]![j]!);
      used[j] = false;
    }
  };
  walk(0, 0);
  return best;
}

export function readRttm(text: string): Turn[] {
  return text
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((parts) => parts[0] === "SPEAKER" && parts.length >= 8)
    .map((parts) => ({ start: Number(parts[3]), end: Number(parts[3]) + Number(parts[4]), speaker: parts[7]! }));
}
