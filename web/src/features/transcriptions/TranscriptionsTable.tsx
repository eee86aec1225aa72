// 'Your Transcriptions' (docs/api.md): name, duration, model, live status, upload date; rename
// and delete; search by name; pages of PAGE_SIZE. While any row is still running the list
// is polled (the BFF answers it with an ETag, so the browser's cache revalidates it cheaply).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useEffect, useId, useState } from "react";
import { Button, Input, Label, LoadingRegion, Skeleton } from "../../components/ui";
import { SearchResults } from "../editor/SearchResults";
import { listTranscriptions, queryKeys } from "../../lib/api/product";
import type { TranscriptionListItem } from "../../lib/api/generated/zod.gen";
import { formatDate, formatDuration } from "../../lib/format";
import { DeleteDialog } from "./DeleteDialog";
import { RenameDialog } from "./RenameDialog";
import { IN_PROGRESS_STATUSES, StatusBadge } from "./StatusBadge";

export const PAGE_SIZE = 10;
export const LIST_POLL_INTERVAL_MS = 3000;
const SEARCH_DEBOUNCE_MS = 300;

export function TranscriptionsTable() {
  const [offset, setOffset] = useState(0);
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [renaming, setRenaming] = useState<TranscriptionListItem | null>(null);
  const [deleting, setDeleting] = useState<TranscriptionListItem | null>(null);
  const searchId = useId();

  useEffect(() => {
    const timer = setTimeout(() => {
      setQ(search.trim());
      setOffset(0);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search]);

  const params = { limit: PAGE_SIZE, offset, q: q || undefined };
  const list = useQuery({
    queryKey: queryKeys.transcriptionList(params),
    queryFn: ({ signal }) => listTranscriptions(params, signal),
    placeholderData: keepPreviousData,
    staleTime: 0,
    refetchInterval: (query) =>
      query.state.data?.transcriptions.some((row) => IN_PROGRESS_STATUSES.has(row.status)) ? LIST_POLL_INTERVAL_MS : false,
  });

  const rows = list.data?.transcriptions ?? [];
  const total = list.data?.totalCount ?? 0;

  // Deleting the last row of a page leaves an empty page: step back.
  useEffect(() => {
    if (list.data && rows.length === 0 && offset > 0) setOffset(Math.max(0, offset - PAGE_SIZE));
  }, [list.data, rows.length, offset]);

  return (
    <section className="transcriptions" aria-labelledby="transcriptions-heading">
      <div className="transcriptions-toolbar">
        <h2 id="transcriptions-heading">Transcriptions</h2>
        <div className="search-field">
          <Label htmlFor={searchId} className="visually-hidden">
            Search names and words
          </Label>
          <Input id={searchId} type="search" placeholder="Search names and words" value={search} onChange={(event) => setSearch(event.target.value)} />
        </div>
      </div>

      {q ? <SearchResults q={q} /> : null}

      {list.isPending ? (
        <LoadingRegion label="Loading transcriptions…" className="table-wrap table-skeleton">
          {[0, 1, 2].map((row) => (
            <div key={row} className="table-skeleton-row">
              <Skeleton width="40%" />
              <Skeleton width="12%" />
              <Skeleton width="18%" />
            </div>
          ))}
        </LoadingRegion>
      ) : list.isError ? (
        <p role="alert" className="field-error">
          Could not load your transcriptions: {list.error.message}{" "}
          <Button size="sm" onClick={() => void list.refetch()}>
            Retry
          </Button>
        </p>
      ) : rows.length === 0 ? (
        <div className="empty-state">
          <svg className="empty-state-icon" width="32" height="32" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
            <path d="M12 3v10m-4-4v4m8-6v6M6 17h12M4 21h16" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
          </svg>
          {q ? <p>No transcriptions match “{q}”.</p> : <p>No transcriptions yet. Upload a recording above to get started.</p>}
        </div>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table table-stacked">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Model</th>
                  <th scope="col">Status</th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id}>
                    <td>
                      <Link to="/transcript/$id" params={{ id: row.id }} className="table-link">
                        {row.displayName}
                      </Link>
                    </td>
                    <td className="numeric">{formatDuration(row.duration)}</td>
                    <td>{row.model}</td>
                    <td>
                      <StatusBadge status={row.status} />
                    </td>
                    <td>
                      <time dateTime={row.uploadedAt}>{formatDate(row.uploadedAt)}</time>
                    </td>
                    <td className="table-actions">
                      <Button size="sm" variant="ghost" aria-label={`Rename ${row.displayName}`} onClick={() => setRenaming(row)}>
                        Rename
                      </Button>
                      <Button size="sm" variant="ghost" aria-label={`Delete ${row.displayName}`} onClick={() => setDeleting(row)}>
                        Delete
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="pagination" aria-label="Pagination">
            <span className="muted">
              {offset + 1}–{offset + rows.length} of {total}
            </span>
            <Button size="sm" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Previous
            </Button>
            <Button size="sm" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Next
            </Button>
          </nav>
        </>
      )}

      {renaming ? (
        <RenameDialog
          id={renaming.id}
          currentName={renaming.displayName}
          open
          onOpenChange={(open) => {
            if (!open) setRenaming(null);
          }}
        />
      ) : null}
      {deleting ? (
        <DeleteDialog
          id={deleting.id}
          name={deleting.displayName}
          open
          onOpenChange={(open) => {
            if (!open) setDeleting(null);
          }}
        />
      ) : null}
    </section>
  );
}
