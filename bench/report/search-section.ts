import type { BenchResult } from "../lib/results.js";
import { notRecorded, num, provenance, table, verdict } from "./markdown.js";
import type { Section } from "./sections.js";

// ---- 8. transcript search and edit saves ------------------------------------------------

interface Timing {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface SearchData {
  corpus?: { transcripts: number; otherUserTranscripts: number; segmentsPerTranscript: number; wordsPerSegment: number; vocabulary: number; sentences?: number; segments: number; tableSize: string; generateSeconds: number; reused?: boolean };
  search?: { targetP95Ms: number; countCap?: number; all: Timing; groups: Record<string, Timing & { medianTotalCount: number }> };
  save: Timing & { targetP95Ms: number; segments: number; words: number };
}

/** `saves` (npm run bench:search -- --saves-only, search-save.json), when newer, gives the save figures. */
export function searchSection(result: BenchResult<SearchData> | undefined, saves?: BenchResult<Pick<SearchData, "save">>): Section {
  const intro = `## 8. Transcript search and edit saves

\`npm run bench:search\` (\`bench/search/search.ts\`; \`--transcripts\`, \`--queries\`, \`--saves\`, \`--saves-only\`,
\`--data-dir\` to keep the generated database and reuse it next run, migrating it to the latest schema). A real
embedded PostgreSQL with the transcription service's migrations; the service itself over Connect. **Search**: one
user owns many one-hour transcripts (generated in the database with \`generate_series\` from a vocabulary with a
Zipf-like frequency, as a fixed set of distinct sentences each segment draws one of, so even a rare word is said in
hundreds of segments; English configuration), a second user a tenth as many; queries of one word from three
frequency bands (rare, medium, common), two words, and accented spellings of unaccented words, each a
\`SearchTranscripts\` call (query, count up to the cap, rank, a page of 20 with \`ts_headline\` snippets). **Save**: a
two-hour transcript stored as the worker stores a result, then one-word corrections, each on the current revision,
through \`SaveTranscript\` (the whole segment list in; load the revision, diff and time the words, store the new
revision as a delta, reindex the touched segment, outbox event, the changed segments back and patched into the
client's copy, as the web editor does). The sizes and targets below are the run's own.`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("search", "npm run bench:search")}`, summary: [] };
  const d = result.data;
  const laterSaves = saves && saves.date > result.date ? saves : undefined;
  const save = laterSaves?.data.save ?? d.save;
  const parts: string[] = [intro, ""];
  parts.push(provenance(result));
  if (d.corpus && d.search) {
    const cap = d.search.countCap ?? 1000;
    const c = d.corpus;
    parts.push(
      "",
      `Corpus: ${num(c.transcripts)} + ${num(c.otherUserTranscripts)} transcripts of ${num(c.segmentsPerTranscript)} segments of ${num(c.wordsPerSegment)} words ` +
        `(${num(c.segments)} segments), from a ${num(c.vocabulary)}-word vocabulary${c.sentences ? ` as ${num(c.sentences)} distinct sentences` : ""}; ` +
        `${c.tableSize} with the index, generated in ${num(c.generateSeconds)} s${c.reused ? " (by an earlier run with --data-dir; this run reused it)" : ""}. ` +
        `A query counts at most ${num(cap)} matching segments. **Target: p95 under ${num(d.search.targetP95Ms)} ms.**`,
      "",
      table(
        ["queries", "n", "p50", "p95", "p99", "max", "median total_count"],
        [
          ...Object.entries(d.search.groups).map(([name, g]) => [name, g.n, `${num(g.p50, 1)} ms`, `${num(g.p95, 1)} ms`, `${num(g.p99, 1)} ms`, `${num(g.max, 1)} ms`, g.medianTotalCount >= cap ? `${num(cap)} (capped)` : num(g.medianTotalCount)]),
          ["**all**", d.search.all.n, `${num(d.search.all.p50, 1)} ms`, `**${num(d.search.all.p95, 1)} ms**`, `${num(d.search.all.p99, 1)} ms`, `${num(d.search.all.max, 1)} ms`, ""],
        ],
      ),
    );
  }
  if (laterSaves) parts.push("", `Saves measured again on their own (no search corpus in the database): ${provenance(laterSaves)}`);
  parts.push(
    "",
    `**Save target: p95 under ${num(save.targetP95Ms)} ms.**`,
    "",
    table(
      ["save", "segments", "words", "n", "p50", "p95", "max", `< ${num(save.targetP95Ms)} ms`],
      [["one word, 2-hour transcript", num(save.segments), num(save.words), save.n, `${num(save.p50)} ms`, `**${num(save.p95)} ms**`, `${num(save.max)} ms`, verdict(save.p95 < save.targetP95Ms)]],
    ),
  );
  parts.push(
    "",
    `What it means: a query reads at most the cap of matching segment rows (each kind, segments and names, is
counted exactly up to it) and joins the transcript for the page of 20 only. A rare or medium word comes from the
GIN index on (user_id, document); a common word is cheaper to find by reading segments in table order until the cap
matches, which the planner picks. A save stores the changed segments over their base revision with a whole
snapshot every so many saves, keeps the last committed revision of a transcript in process and answers with the
changed segments only; what is left is mostly the request itself (the whole segment list, as the contract has
it) and the PostgreSQL round trips of one transaction. Decision 0021 records the designs this replaced and what
they measured. Under a load average above the core count (see each run's provenance) the figures are upper bounds.`,
  );
  const summary = [
    ...(d.search
      ? [
          {
            benchmark: `8. search, ${d.corpus ? `${num(d.corpus.transcripts)} one-hour transcripts` : "search corpus"}`,
            figure: `p95 ${num(d.search.all.p95, 1)} ms (p50 ${num(d.search.all.p50, 1)} ms)`,
            target: `p95 < ${num(d.search.targetP95Ms)} ms`,
            met: d.search.all.p95 < d.search.targetP95Ms,
          },
        ]
      : []),
    {
      benchmark: `8. save one word, ${num(save.segments)}-segment transcript`,
      figure: `p95 ${num(save.p95)} ms (p50 ${num(save.p50)} ms)`,
      target: `p95 < ${num(save.targetP95Ms)} ms`,
      met: save.p95 < save.targetP95Ms,
    },
  ];
  return { markdown: parts.join("\n"), summary };
}
