// The editor's routes (docs/api.md "Transcript editor"), through the one API client.
import { z } from "zod";
import { api } from "../../lib/api";
import { segmentSchema, speakerSchema } from "../../lib/api/schemas";

export const revisionSchema = z.object({
  number: z.number(),
  kind: z.enum(["original", "edit", "restore"]),
  authorId: z.string().nullable(),
  createdAt: z.string(),
  baseRevision: z.number().optional(),
  restoredFrom: z.number().optional(),
  changes: z.object({
    editedSegments: z.array(z.number()),
    addedSegments: z.array(z.number()),
    removedSegments: z.array(z.number()),
    wordsAdded: z.number(),
    wordsRemoved: z.number(),
  }),
});
export type Revision = z.infer<typeof revisionSchema>;

const resultSchema = z.object({
  id: z.string(),
  text: z.string(),
  language: z.string(),
  duration: z.number(),
  revision: z.number(),
  segments: z.array(segmentSchema),
  speakers: z.array(speakerSchema).default([]),
  speakersNote: z.string().optional(),
});
const revisionWithResultSchema = z.object({ revision: revisionSchema, result: resultSchema });

export const searchHitSchema = z.object({
  transcriptionId: z.string(),
  displayName: z.string(),
  segmentId: z.number().nullable(),
  start: z.number(),
  end: z.number(),
  /** HTML from the server: the text escaped, matches in <mark>. */
  snippet: z.string(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;
const searchSchema = z.object({ hits: z.array(searchHitSchema), totalCount: z.number(), totalCapped: z.boolean() });

export const editorKeys = {
  revisions: (id: string) => ["transcriptions", "revisions", id] as const,
  search: (q: string, offset: number) => ["transcriptions", "search", q, offset] as const,
};

type Result = z.infer<typeof resultSchema>;

/** A save answers with what changed only (a two-hour transcript is megabytes); see patchSaved. */
const savedSchema = z.object({ revision: revisionSchema, changed: resultSchema, segmentIds: z.array(z.number()) });
export type Saved = z.infer<typeof savedSchema>;

export function saveTranscript(id: string, body: { baseRevision: number; segments: Array<{ id?: number; text: string; speaker?: string }> }) {
  return api.request({ method: "PUT", path: "/transcriptions/{id}/result", params: { id }, body, schema: savedSchema });
}

export function getRevision(id: string, revision: number) {
  return api.request({ path: "/transcriptions/{id}/revisions/{rev}", params: { id, rev: revision }, schema: revisionWithResultSchema });
}

/**
 * The saved result: the answer's changed segments put into the result the save was based
 * on, in the answer's order. Undefined when `base` is not that revision (or lacks a
 * segment), so the caller reads the saved revision whole instead.
 */
export function patchSaved(base: Result, saved: Saved): Result | undefined {
  const unchanged = saved.changed.revision === base.revision;
  if (!unchanged && saved.revision.baseRevision !== base.revision) return undefined;
  const byId = new Map(base.segments.map((s) => [s.id, s]));
  for (const s of saved.changed.segments) byId.set(s.id, s);
  const segments = saved.segmentIds.map((id) => byId.get(id));
  if (segments.some((s) => s === undefined)) return undefined;
  return { ...saved.changed, segments: segments as Result["segments"] };
}

/** Saves, and gives the saved revision and its whole result as a restore does. */
export async function saveAndPatch(id: string, base: Result, body: Parameters<typeof saveTranscript>[1]) {
  const saved = await saveTranscript(id, body);
  const result = patchSaved(base, saved) ?? (await getRevision(id, saved.changed.revision)).result;
  return { revision: saved.revision, result };
}

export function listRevisions(id: string, signal?: AbortSignal) {
  return api.request({ path: "/transcriptions/{id}/revisions", params: { id }, schema: z.object({ revisions: z.array(revisionSchema), currentRevision: z.number() }), signal });
}

export function restoreRevision(id: string, revision: number) {
  return api.request({ method: "POST", path: "/transcriptions/{id}/revisions/{rev}/restore", params: { id, rev: revision }, schema: revisionWithResultSchema });
}

export function searchTranscripts(q: string, offset = 0, signal?: AbortSignal) {
  return api.request({ path: "/search", query: { q, limit: 20, offset }, schema: searchSchema, signal });
}
