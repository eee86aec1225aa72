// The editor's routes (docs/api.md "Transcript editor"), through the one API client.
import { api } from "../../lib/api";
import {
  type SaveTranscript,
  type TranscriptionResult,
  type TranscriptSaved,
  zTranscriptRevisionList,
  zTranscriptRevisionWithResult,
  zTranscriptSaved,
  zTranscriptSearch,
} from "../../lib/api/generated/zod.gen";

export const editorKeys = {
  revisions: (id: string) => ["transcriptions", "revisions", id] as const,
  search: (q: string, offset: number) => ["transcriptions", "search", q, offset] as const,
};

/** A save answers with what changed only (a two-hour transcript is megabytes); see patchSaved. */
export function saveTranscript(id: string, body: SaveTranscript) {
  return api.request({ method: "PUT", path: "/transcriptions/{id}/result", params: { id }, body, schema: zTranscriptSaved });
}

export function getRevision(id: string, revision: number) {
  return api.request({ path: "/transcriptions/{id}/revisions/{rev}", params: { id, rev: revision }, schema: zTranscriptRevisionWithResult });
}

/**
 * The saved result: the answer's changed segments put into the result the save was based
 * on, in the answer's order. Undefined when `base` is not that revision (or lacks a
 * segment), so the caller reads the saved revision whole instead.
 */
export function patchSaved(base: TranscriptionResult, saved: TranscriptSaved): TranscriptionResult | undefined {
  const unchanged = saved.changed.revision === base.revision;
  if (!unchanged && saved.revision.baseRevision !== base.revision) return undefined;
  const byId = new Map(base.segments.map((s) => [s.id, s]));
  for (const s of saved.changed.segments) byId.set(s.id, s);
  const segments = saved.segmentIds.map((id) => byId.get(id));
  if (segments.some((s) => s === undefined)) return undefined;
  return { ...saved.changed, segments: segments as TranscriptionResult["segments"] };
}

/** Saves, and gives the saved revision and its whole result as a restore does. */
export async function saveAndPatch(id: string, base: TranscriptionResult, body: Parameters<typeof saveTranscript>[1]) {
  const saved = await saveTranscript(id, body);
  const result = patchSaved(base, saved) ?? (await getRevision(id, saved.changed.revision)).result;
  return { revision: saved.revision, result };
}

export function listRevisions(id: string, signal?: AbortSignal) {
  return api.request({ path: "/transcriptions/{id}/revisions", params: { id }, schema: zTranscriptRevisionList, signal });
}

export function restoreRevision(id: string, revision: number) {
  return api.request({ method: "POST", path: "/transcriptions/{id}/revisions/{rev}/restore", params: { id, rev: revision }, schema: zTranscriptRevisionWithResult });
}

export function searchTranscripts(q: string, offset = 0, signal?: AbortSignal) {
  return api.request({ path: "/search", query: { q, limit: 20, offset }, schema: zTranscriptSearch, signal });
}
