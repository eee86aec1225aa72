// What the dashboard's search box finds inside transcripts (decision 0021): segment hits with
// their time and a highlighted snippet, and name hits. A hit opens the transcript
// playing from its time. Snippets are HTML escaped by the server, with <mark> only.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { Button, Spinner } from "../../components/ui";
import { formatDuration } from "../../lib/format";
import { editorKeys, searchTranscripts } from "./api";
import "./editor.css";

const PAGE = 20;

export function SearchResults({ q }: { q: string }) {
  const [offset, setOffset] = useState(0);
  const [forQ, setForQ] = useState(q);
  if (forQ !== q) {
    setForQ(q);
    setOffset(0);
  }
  const search = useQuery({
    queryKey: editorKeys.search(q, offset),
    queryFn: ({ signal }) => searchTranscripts(q, offset, signal),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
  if (search.isPending) return <Spinner label="Searching transcripts…" />;
  if (search.isError) return <p role="alert">Search failed: {search.error.message}</p>;
  const { hits, totalCount, totalCapped } = search.data;
  return (
    <section className="search-results" aria-label="Found in transcripts">
      <h3>
        Found in transcripts <span className="muted">({totalCapped ? `${totalCount}+` : totalCount})</span>
      </h3>
      {hits.length === 0 ? <p className="muted">No transcript says “{q}”.</p> : null}
      <ol className="search-hits">
        {hits.map((hit) => (
          <li key={`${hit.transcriptionId}:${hit.segmentId ?? "name"}`}>
            <Link
              className="search-hit"
              to="/transcript/$id"
              params={{ id: hit.transcriptionId }}
              search={hit.segmentId === null ? {} : { t: hit.start }}
              data-testid="search-hit"
            >
              <span className="search-hit-meta">
                {hit.displayName} · {hit.segmentId === null ? "name" : formatDuration(hit.start)}
              </span>
              <br />
              {/* Server-escaped text with <mark> highlights (ts_headline, services/transcription/src/search.ts). */}
              <span dangerouslySetInnerHTML={{ __html: hit.snippet }} />
            </Link>
          </li>
        ))}
      </ol>
      {offset > 0 || offset + PAGE < totalCount ? (
        <div className="button-row">
          <Button size="sm" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </Button>
          <Button size="sm" disabled={offset + PAGE >= totalCount} onClick={() => setOffset(offset + PAGE)}>
            Next
          </Button>
        </div>
      ) : null}
    </section>
  );
}
