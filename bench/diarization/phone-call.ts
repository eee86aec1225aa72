import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readRttm, type Turn } from "./der.js";

/**
 * A two-party phone call made of two real voices: two different men from two different
 * AMI meetings (MÉO069 in ami_trn03, MEE009 in ami_dev00), their own speech only (stretches
 * where nobody else talks, by the human RTTM), cut into turns of at most 5 s, alternating,
 * 0.4 s apart, then band-limited to the telephone band (300–3400 Hz) at 8 kHz.
 * The reference turns are the pieces as laid end to end (pauses inside a piece count as
 * speech, as in AMI's own turns).
 */
export const CALLERS = [
  { file: "ami_trn03", speaker: "MÉO069" },
  { file: "ami_dev00", speaker: "MEE009" },
] as const;

const MIN_PIECE = 1.5;
const MAX_PIECE = 5;
const GAP = 0.4;

/** The speaker's turns minus everyone else's, cut into pieces of MIN_PIECE..MAX_PIECE s. */
export function soloPieces(turns: readonly Turn[], speaker: string): Array<[number, number]> {
  const others = turns.filter((t) => t.speaker !== speaker);
  const pieces: Array<[number, number]> = [];
  for (const own of turns.filter((t) => t.speaker === speaker)) {
    let stretches: Array<[number, number]> = [[own.start, own.end]];
    for (const o of others) {
      stretches = stretches.flatMap(([s, e]): Array<[number, number]> => {
        if (o.end <= s || o.start >= e) return [[s, e]];
        const split: Array<[number, number]> = [
          [s, Math.min(e, o.start)],
          [Math.max(s, o.end), e],
        ];
        return split.filter(([a, b]) => b > a);
      });
    }
    for (const [s, e] of stretches) {
      for (let a = s; e - a >= MIN_PIECE; a += MAX_PIECE) pieces.push([a, Math.min(e, a + MAX_PIECE)]);
    }
  }
  return pieces;
}

export function buildPhoneCall(amiDir: string): { path: string; turns: Turn[]; duration: number } {
  const dir = mkdtempSync(path.join(tmpdir(), "phone-call-"));
  const sources = CALLERS.map((c) => ({
    wav: path.join(amiDir, `${c.file}.wav`),
    name: c.speaker,
    pieces: soloPieces(readRttm(readFileSync(path.join(amiDir, `${c.file}.rttm`), "utf8")), c.speaker),
  }));
  const gap = path.join(dir, "gap.wav");
  execFileSync("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", String(GAP)]);
  const parts: string[] = [];
  const turns: Turn[] = [];
  let t = 0;
  const rounds = Math.max(...sources.map((s) => s.pieces.length));
  for (let k = 0; k < rounds; k++) {
    for (const [i, source] of sources.entries()) {
      const piece = source.pieces[k];
      if (!piece) continue;
      const out = path.join(dir, `p${k}-${i}.wav`);
      const length = piece[1] - piece[0];
      execFileSync("sox", [source.wav, out, "trim", piece[0].toFixed(3), length.toFixed(3)]);
      if (parts.length) {
        parts.push(gap);
        t += GAP;
      }
      parts.push(out);
      turns.push({ start: t, end: t + length, speaker: source.name });
      t += length;
    }
  }
  const joined = path.join(dir, "joined.wav");
  execFileSync("sox", [...parts, joined]);
  const call = path.join(dir, "call.wav");
  execFileSync("sox", [joined, "-r", "8000", call, "sinc", "300-3400"]);
  return { path: call, turns, duration: t };
}
