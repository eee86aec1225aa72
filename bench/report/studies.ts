import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../lib/results.js";
import { num, pct, table } from "./markdown.js";

/*
 * The studies behind the engine's defaults (decision 0010): run by hand when the engine
 * changes, not by `npm run bench`. Their figures come from the JSON they wrote
 * (bench/transcription/*.json, committed); the findings are prose kept here.
 */

function readJson<T>(relative: string): T | undefined {
  const file = path.join(repoRoot, relative);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;
}

interface CandidateRow {
  model: string;
  audio_seconds?: number;
  load_average_1m?: number;
  compute_type: string;
  cpu_per_audio_second?: number;
  rtf?: number;
  wer?: number;
  max_rss_mb?: number;
  error?: string;
}

interface LongAudio {
  date: string;
  model: string;
  audio_seconds: number;
  chunks: number;
  chunk_seconds: number;
  wall_seconds: number;
  rtf: number;
  wer: number;
  insertion_runs_of_3_or_more: string[];
  deletion_runs_of_3_or_more: string[];
  load_average_1m: number;
}

export function studiesSection(): string {
  const candidates = readJson<{ date: string; cores: number; rows: CandidateRow[] }>("bench/transcription/results.json");
  const candidateTable = candidates
    ? table(
        ["model", "compute", "CPU s per audio s", "wall RTF (loaded)", "WER", "peak RSS"],
        candidates.rows.map((r) =>
          r.error
            ? [r.model, r.compute_type, `does not load: ${r.error}`, "", "", ""]
            : [r.model, r.compute_type, num(r.cpu_per_audio_second, 3), num(r.rtf, 3), pct(r.wer ?? 0), `${num(r.max_rss_mb)} MB`],
        ),
      )
    : "*bench/transcription/results.json is missing.*";
  const long = ["tiny.en-chunk300", "tiny.en-chunk60", "base-chunk300", "base-chunk60"]
    .map((name) => readJson<LongAudio>(`bench/transcription/long-audio-${name}.json`))
    .filter((r): r is LongAudio => r !== undefined);
  const longTable = table(
    ["model", "windows", "wall time", "RTF", "WER", "runs of 3+ inserted / lost words", "load average"],
    long.map((r) => [
      r.model === "base" ? "base (default)" : r.model,
      `${r.chunks} × ${r.chunk_seconds} s${r.chunks > 2 ? ` (${r.chunks - 1} seams)` : ""}`,
      `${num(r.wall_seconds)} s for ${num(r.audio_seconds)} s`,
      num(r.rtf, 3),
      r.model === "base" && r.chunk_seconds === 300 ? `**${pct(r.wer)}**` : pct(r.wer),
      `${r.insertion_runs_of_3_or_more.length ? r.insertion_runs_of_3_or_more.length : "none"} / ${r.deletion_runs_of_3_or_more.length ? r.deletion_runs_of_3_or_more.length : "none"}`,
      num(r.load_average_1m, 1),
    ]),
  );

  const rows = candidates?.rows ?? [];
  const audio = rows.find((r) => r.audio_seconds !== undefined)?.audio_seconds;
  const loads = rows.flatMap((r) => (r.load_average_1m === undefined ? [] : [r.load_average_1m]));
  const loadRange = loads.length ? ` (load average ${num(Math.min(...loads), 0)}–${num(Math.max(...loads), 0)} on ${candidates?.cores ?? "?"} cores)` : "";
  return `## Studies behind the engine's defaults (run by hand)

These choose the engine's settings (decision 0010) and check the seam merge; they are not part of
\`npm run bench\`. All synthesize English with espeak-ng and use the script as the word-error-rate reference
(lower-cased, punctuation removed).

**Engine candidates** — \`$(services/transcription/engine/setup.sh) bench/transcription/engine_bench.py\`:
each model and compute type in a fresh engine process (through the product's \`whisper_engine.py\`)${audio === undefined ? "" : `, ${num(audio, 1)} s`}
of speech (three passages, en-us/en-gb voices), language auto-detected, beam 1, 2 threads.
Results: \`bench/transcription/results.json\`${candidates ? `, recorded ${candidates.date}` : ""} while the machine was shared${loadRange},
so the wall-clock RTF is inflated; CPU seconds per audio second does not depend on the load.

${candidateTable}

Decision 0010 records why the larger models do not load here and the beam-1 against beam-5 comparison that made
int8 and beam 5 the defaults.

**A 10-minute file through the product's adapter, in windows** —
\`npx tsx bench/transcription/long-audio.ts --minutes 10 --model base --chunk 300 --overlap 5\`: ~600 s of
twelve sentences cycled over four voices and speeds, transcribed by \`LocalTranscriber\` (int8, beam 5, all
cores) in overlapping windows and merged. Besides WER it aligns the transcript with the script and lists
every run of 3+ inserted or deleted words: a seam that duplicated or lost words shows up there. Results:
\`bench/transcription/long-audio-*.json\`:

${longTable}

The 60 s runs are the stress case for the seam merge. Two fixes came from them (decision 0010): a window
whose transcript starts seconds late is bridged by re-transcribing around the hole, and where the earlier window
skipped words near its end the merge takes the later window's. The CI test
(\`services/transcription/test/engine.test.ts\`) runs the tiny.en 60 s-window case and fails on any run of
inserted or lost words near a seam.

The whole path (the BFF journey test, \`services/bff/test/transcriptions.test.ts\`) and the browser against the
running embedded stack (\`web/e2e/transcript.mjs\`, run by \`deploy/embedded/test/embedded-stack.test.ts\`) check
the word error rate of a real transcription against their own limits in CI; their figures are in those tests'
output, not recorded here.`;
}
