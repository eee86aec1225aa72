import { AppError, escapeHtml } from "@transcribe/platform";
import { sql } from "kysely";
import type { Db } from "./db/repository.js";

/**
 * Full-text search over one user's transcripts (decision 0021): the current revision's
 * segments (transcription_search_segments) and the names, never deleted transcripts.
 *
 * Each transcript's segments are indexed with the configuration of its language
 * (transcript_search_config: Whisper's code → stemmer, with unaccent in front; 'simple'
 * when there is none). The query is parsed with every configuration the caller's
 * transcripts use and OR-ed, so "meetings" finds an English "meeting" and a German
 * "Sitzungen" "Sitzung", and "cafe" finds "café". One GIN index on (user_id, document)
 * answers it (btree_gin), so another user's rows are never read.
 */

export const MAX_QUERY_LENGTH = 200;
/**
 * Matches counted (and ranked) per kind, names and segments; beyond it total_count is
 * this and total_capped says there are more. Counting reads every counted segment row,
 * so the cap is what a common word costs: 200 (ten pages of 20) keeps search p95 under
 * 50 ms over 10,000 hours of transcripts (docs/benchmarks.md §8), where 1,000 took twice
 * as long for no answer a person pages through.
 */
export const MAX_COUNTED = 200;

export interface SearchHit {
  transcriptionId: string;
  displayName: string;
  segmentId: number | undefined;
  start: number;
  end: number;
  /** HTML: the text escaped, matches in <mark>. */
  snippet: string;
}

// ts_headline marks matches with characters no text keeps (they are stripped first), so
// the snippet can be escaped as a whole and the marks put back as tags.
const START = "\u0001";
const STOP = "\u0002";

export function snippetHtml(headline: string): string {
  return escapeHtml(headline).replaceAll(START, "<mark>").replaceAll(STOP, "</mark>");
}

export async function searchTranscripts(
  db: Db,
  input: { userId: string; query: string; limit: number; offset: number },
): Promise<{ hits: SearchHit[]; total: number; capped: boolean }> {
  const query = input.query.trim();
  if (!query) throw new AppError("invalid_argument", "Search text cannot be empty", { field: "q" });
  if (query.length > MAX_QUERY_LENGTH) throw new AppError("invalid_argument", `Search text is too long: at most ${MAX_QUERY_LENGTH} characters`, { field: "q" });
  // The distinct configurations by a loose index scan: one index probe per configuration
  // instead of reading an index entry for every transcript the caller has.
  const configs = await sql<{ search_config: string }>`
    with recursive found as (
      (select search_config from transcriptions
       where user_id = ${input.userId} and status <> 'deleted' and search_config is not null
       order by search_config limit 1)
      union all
      select (select t.search_config from transcriptions t
              where t.user_id = ${input.userId} and t.status <> 'deleted' and t.search_config > found.search_config
              order by t.search_config limit 1)
      from found where found.search_config is not null
    )
    select search_config::text as search_config from found where search_config is not null`
    .execute(db)
    .then((r) => r.rows);
  // Segments: the query under each configuration the caller's transcripts use; names are
  // indexed with the simple one.
  const segmentConfigs = [...new Set(configs.map((c) => c.search_config))];
  const tsquery = segmentConfigs.length
    ? sql.join(
        segmentConfigs.map((name) => sql`websearch_to_tsquery(${name}::regconfig, ${query})`),
        sql` || `,
      )
    : sql`''::tsquery`;
  const nameQuery = sql`websearch_to_tsquery('transcript_simple'::regconfig, ${query})`;
  // At most MAX_COUNTED matches are ranked and counted: a word said in a quarter of a
  // library's segments would otherwise cost a scan of all of them on every keystroke.
  // (Ranking needs every match, so an ordering an index could stop early on does not help.)
  // Counting and ranking read the segment rows alone; the transcript (name, status) is
  // joined for the returned page only, not for every counted match.
  const { rows } = await sql<{
    transcription_id: string;
    display_name: string;
    segment_id: number | null;
    start_seconds: number;
    end_seconds: number;
    snippet: string;
    total: string;
  }>`
    with named as (
      select t.id as transcription_id, null::integer as segment_id, 0::float8 as start_seconds, 0::float8 as end_seconds,
             t.display_name as text, 'transcript_simple'::regconfig as config, 2::real as kind_rank, 0::real as rank
      from transcriptions t
      where t.user_id = ${input.userId} and t.status <> 'deleted' and t.name_document @@ ${nameQuery}
      limit ${MAX_COUNTED}
    ),
    spoken as (
      select s.transcription_id, s.segment_id, s.start_seconds, s.end_seconds, s.text, s.config, 1::real as kind_rank,
             ts_rank(s.document, (${tsquery})) as rank
      from transcription_search_segments s
      where s.user_id = ${input.userId} and s.document @@ (${tsquery})
      limit ${MAX_COUNTED}
    ),
    hits as (select * from named union all select * from spoken),
    page as (
      select *, count(*) over () as total from hits
      order by kind_rank desc, rank desc, transcription_id, start_seconds
      limit ${input.limit} offset ${input.offset}
    )
    select page.transcription_id, t.display_name, page.segment_id, page.start_seconds, page.end_seconds, page.total,
           ts_headline(page.config, translate(page.text, ${START + STOP}, ''), case when page.segment_id is null then ${nameQuery} else (${tsquery}) end,
             ${`StartSel=${START}, StopSel=${STOP}, MaxWords=24, MinWords=10, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`}) as snippet
    from page
    -- A transcript's search rows go in the transaction that deletes it; the status test
    -- keeps a deleted one out even so.
    join transcriptions t on t.id = page.transcription_id and t.status <> 'deleted'
    order by page.kind_rank desc, page.rank desc, page.transcription_id, page.start_seconds`.execute(db);
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && input.offset > 0) {
    // Past the last page: the count still answers how many there are.
    const counted = await sql<{ n: string }>`
      select (select count(*) from (select 1 from transcriptions t where t.user_id = ${input.userId} and t.status <> 'deleted' and t.name_document @@ ${nameQuery} limit ${MAX_COUNTED}) a)
           + (select count(*) from (select 1 from transcription_search_segments s
              where s.user_id = ${input.userId} and s.document @@ (${tsquery}) limit ${MAX_COUNTED}) b) as n`.execute(db);
    total = Number(counted.rows[0]?.n ?? 0);
  }
  return {
    total,
    // Either kind may have reached its cap; then there are more than total.
    capped: total >= MAX_COUNTED,
    hits: rows.map((r) => ({
      transcriptionId: r.transcription_id,
      displayName: r.display_name,
      segmentId: r.segment_id ?? undefined,
      start: r.start_seconds,
      end: r.end_seconds,
      snippet: snippetHtml(r.snippet),
    })),
  };
}
