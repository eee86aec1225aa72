import type { BenchResult } from "../lib/results.js";
import { notRecorded, num, provenance, table, verdict } from "./markdown.js";
import type { Section } from "./sections.js";

// ---- 8. transcript search and edit saves (issue 19) --------------------------------------

interface Timing {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface SearchData {
  corpus?: { transcripts: number; otherUserTranscripts: number; segmentsPerTranscript: number; wordsPerSegment: number; vocabulary: number; segments: number; tableSize: string; generateSeconds: number };
  search?: { targetP95Ms: number; all: Timing; groups: Record<string, Timing & { medianTotalCount: number }> };
  save: Timing & { targetP95Ms: number; segments: number; words: number };
}

const SEARCH_TARGET_MS = 50;
const SAVE_TARGET_MS = 200;

/** `saves` (npm run bench:search -- --saves-only, search-save.json), when newer, gives the save figures. */
export function searchSection(result: BenchResult<SearchData> | undefined, saves?: BenchResult<Pick<SearchData, "save">>): Section {
  const intro = `## 8. Transcript search and edit saves

\`npm run bench:search\` (\`bench/search/search.ts\`; \`--transcripts\`, \`--queries\`, \`--saves\`, \`--saves-only\`). A real
embedded PostgreSQL with the transcription service's migrations; the service itself over Connect. **Search**: one
user owns 10,000 one-hour transcripts (360 segments of 25 words each, generated in the database with
\`generate_series\` from a 20,000-word vocabulary with a Zipf-like frequency, as 4,000 distinct sentences each
segment draws one of, so even a rare word is said in hundreds of segments; English configuration), a second user
a tenth as many; queries of one word from three frequency bands (rare, medium, common), two words, and accented
spellings of unaccented words, each a \`SearchTranscripts\` call (query, count up to 1,000, rank, a page of 20 with
\`ts_headline\` snippets). **Target: p95 under ${SEARCH_TARGET_MS} ms on 2 cores.** **Save**: a two-hour transcript
(1,500 segments, 20,000 timed words) stored as the worker stores a result, then one-word corrections, each on the
current revision, through \`SaveTranscript\` (the whole segment list in; load the revision, diff and time the words,
store the new revision as a delta, reindex the touched segment, outbox event, the changed segments back and patched
into the client's copy, as the web editor does). **Target: p95 under ${SAVE_TARGET_MS} ms.**`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("search", "npm run bench:search")}`, summary: [] };
  const d = result.data;
  const laterSaves = saves && saves.date > result.date ? saves : undefined;
  const save = laterSaves?.data.save ?? d.save;
  const parts: string[] = [intro, ""];
  parts.push(provenance(result));
  if (d.corpus && d.search) {
    parts.push(
      "",
      `Corpus: ${num(d.corpus.transcripts)} + ${num(d.corpus.otherUserTranscripts)} transcripts, ${num(d.corpus.segments)} segments, ${d.corpus.tableSize} with the index, generated in ${num(d.corpus.generateSeconds)} s.`,
      "",
      table(
        ["queries", "n", "p50", "p95", "p99", "max", "median total_count"],
        [
          ...Object.entries(d.search.groups).map(([name, g]) => [name, g.n, `${num(g.p50, 1)} ms`, `${num(g.p95, 1)} ms`, `${num(g.p99, 1)} ms`, `${num(g.max, 1)} ms`, g.medianTotalCount === 1001 || g.medianTotalCount >= 1000 ? "1,000 (capped)" : num(g.medianTotalCount)]),
          ["**all**", d.search.all.n, `${num(d.search.all.p50, 1)} ms`, `**${num(d.search.all.p95, 1)} ms**`, `${num(d.search.all.p99, 1)} ms`, `${num(d.search.all.max, 1)} ms`, ""],
        ],
      ),
    );
  }
  if (laterSaves) parts.push("", `Saves measured again on their own (no search corpus in the database): ${provenance(laterSaves)}`);
  parts.push(
    "",
    table(
      ["save", "segments", "words", "n", "p50", "p95", "max", `< ${SAVE_TARGET_MS} ms`],
      [["one word, 2-hour transcript", num(save.segments), num(save.words), save.n, `${num(save.p50)} ms`, `**${num(save.p95)} ms**`, `${num(save.max)} ms`, verdict(save.p95 < SAVE_TARGET_MS)]],
    ),
  );
  parts.push(
    "",
    `What it means: both runs were taken on the shared 2-core machine with a load average far above 2, so the
figures are upper bounds. Search: one-word queries of rare words and two-word queries stay near the 50 ms p95
even so; frequent words cost more because the GIN index must decode a posting list of hundreds of thousands of
segments before the first 1,000 are ranked (the cap keeps it bounded; without it the first run's common words
took seconds). Save: a revision used to be the whole segment list (1.6 MB of json for two hours), read, parsed,
written and sent back whole over Connect (p50 429 ms, p95 522 ms at load 0.3-3, same machine); now an edit is
stored as the changed segments over its base with a whole snapshot every 32 saves, the last committed revision
of a transcript is kept in process, and a save answers with the changed segments only (decision 0021). What is
left is mostly the request itself (the whole segment list, about 150 kB of text, as the contract has it), the
PostgreSQL round trips of one transaction and its commit; under a load average far above 2 those stretch with
the machine.`,
  );
  const summary = [
    ...(d.search ? [{ benchmark: "8. search, 10,000 one-hour transcripts", figure: `p95 ${num(d.search.all.p95, 1)} ms (p50 ${num(d.search.all.p50, 1)} ms)`, target: `p95 < ${SEARCH_TARGET_MS} ms`, met: d.search.all.p95 < SEARCH_TARGET_MS }] : []),
    { benchmark: "8. save one word, 2-hour transcript", figure: `p95 ${num(save.p95)} ms (p50 ${num(save.p50)} ms)`, target: `p95 < ${SAVE_TARGET_MS} ms`, met: save.p95 < SAVE_TARGET_MS },
  ];
  return { markdown: parts.join("\n"), summary };
}
