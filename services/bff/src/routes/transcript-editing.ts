import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { AppError } from "@transcribe/platform";
import type { Revision, TranscriptionResult, TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { signedInUserId } from "../http/signed-in-user.js";
import { resultSchema, toResultBody } from "./transcriptions.js";
import { security } from "../http/openapi.js";

/**
 * The transcript editor's API (decision 0021): save an edit as a revision, list, read and
 * restore revisions, and full-text search over the caller's transcripts. The rules
 * (timings, limits, conflicts) are the transcription service's; these routes shape only.
 *
 * Optimistic concurrency: every revision has the ETag `"rev-<n>"`. A save names the
 * revision it started from in `base_revision` or `If-Match` (both: they must agree); a
 * stale one gets 409 `revision_conflict` with `detail.current_revision`.
 */

const etagOf = (revision: number) => `"rev-${revision}"`;

const revisionSchema = z
  .object({
    number: z.number().int().positive().describe("1 is the engine's result; every save and restore adds one"),
    kind: z.enum(["original", "edit", "restore"]),
    source: z
      .enum(["vocabulary"])
      .optional()
      .describe('"vocabulary": an edit (no author) that replaced the user\'s "sounds like" spellings when the transcript was finished'),
    author_id: z.string().nullable().describe("Who saved it; null for the engine's result"),
    created_at: z.iso.datetime(),
    base_revision: z.number().int().optional(),
    restored_from: z.number().int().optional(),
    changes: z.object({
      edited_segments: z.array(z.number().int()),
      added_segments: z.array(z.number().int()),
      removed_segments: z.array(z.number().int()),
      words_added: z.number().int(),
      words_removed: z.number().int(),
    }),
  })
  .meta({ id: "TranscriptRevision" });

const revisionWithResult = z.object({ revision: revisionSchema, result: resultSchema }).meta({ id: "TranscriptRevisionWithResult", description: "A revision and the transcript as it reads in it" });

const savedSchema = z
  .object({
    revision: revisionSchema,
    changed: resultSchema.describe("The saved result with only the segments that are new or differ from the base revision's"),
    segment_ids: z.array(z.number().int()).describe("Every segment id of the saved revision, in order: the base's segments with `changed.segments` put in"),
  })
  .meta({
    id: "TranscriptSaved",
    description: "A save's answer: the new revision (the current one when nothing changed) and what changed, not the whole transcript (GET …/revisions/{rev} has it)",
  });

const saveSchema = z
  .object({
    base_revision: z.number().int().positive().max(2_147_483_647).optional().describe("The revision the edit started from (or send If-Match)"),
    segments: z
      .array(
        z.object({
          id: z.number().int().min(0).max(2_147_483_647).optional().describe("A segment of the base revision; omit for a new segment (a split)"),
          text: z.string().max(100_000).describe("At most 5,000 characters (the service refuses longer); empty removes the segment"),
          speaker: z.string().max(1_000).optional().describe('A speaker label such as "S1"; "" clears it; omitted keeps it'),
        }),
      )
      .max(20_000)
      .describe("The whole new segment list, in order; a base segment left out is merged into the one before it"),
  })
  .meta({ id: "SaveTranscript" });

const idParams = z.object({ id: z.string().min(1).max(64) });
const revisionParams = z.object({ id: z.string().min(1).max(64), rev: z.coerce.number().int().positive().max(2_147_483_647) });
const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema };

const searchHitSchema = z.object({
  transcription_id: z.string(),
  display_name: z.string(),
  segment_id: z.number().int().nullable().describe("null when the name matched"),
  start: z.number().describe("Seconds; open /transcript/{transcription_id}?t={start}"),
  end: z.number(),
  snippet: z.string().describe("HTML: the text escaped, matches in <mark>…</mark>"),
});
const searchSchema = z
  .object({
    hits: z.array(searchHitSchema),
    total_count: z.number().int().nonnegative().describe("Matching segments plus matching names, each kind counted exactly up to 200; hits past the count are not served"),
    total_capped: z.boolean().describe("There are more hits than total_count (search with more words to narrow it)"),
  })
  .meta({ id: "TranscriptSearch", description: "Matching segments and names with highlighted snippets and times" });

function toRevisionBody(r: Revision): z.infer<typeof revisionSchema> {
  return {
    number: r.number,
    // The released contract's kinds stay three: the vocabulary's replacements are an edit, marked by source.
    ...(r.kind === "vocabulary" ? { kind: "edit" as const, source: "vocabulary" as const } : { kind: r.kind as "original" | "edit" | "restore" }),
    author_id: r.authorId || null,
    created_at: (r.createdAt ? timestampDate(r.createdAt) : new Date(0)).toISOString(),
    ...(r.baseRevision !== undefined ? { base_revision: r.baseRevision } : {}),
    ...(r.restoredFrom !== undefined ? { restored_from: r.restoredFrom } : {}),
    changes: {
      edited_segments: r.changes?.editedSegments ?? [],
      added_segments: r.changes?.addedSegments ?? [],
      removed_segments: r.changes?.removedSegments ?? [],
      words_added: r.changes?.wordsAdded ?? 0,
      words_removed: r.changes?.wordsRemoved ?? 0,
    },
  };
}

function withRevision(reply: FastifyReply, answer: { revision?: Revision | undefined; result?: TranscriptionResult | undefined }) {
  if (!answer.revision || !answer.result) throw new AppError("not_found", "Transcription not found");
  reply.header("etag", etagOf(answer.result.revision)).header("cache-control", "private, no-cache");
  return { revision: toRevisionBody(answer.revision), result: toResultBody(answer.result) };
}

/** If-Match `"rev-<n>"` (or `W/"rev-<n>"`); `*` means whatever is current, which a save cannot use. */
function baseRevisionOf(request: FastifyRequest, fromBody: number | undefined): number {
  const header = request.headers["if-match"];
  let fromHeader: number | undefined;
  if (typeof header === "string" && header.trim()) {
    const match = /^(?:W\/)?"rev-(\d{1,10})"$/.exec(header.trim());
    if (!match) throw new AppError("invalid_argument", 'If-Match must be a revision ETag such as "rev-3"', { field: "If-Match" });
    fromHeader = Number(match[1]);
    if (fromHeader < 1 || fromHeader > 2_147_483_647) throw new AppError("invalid_argument", "If-Match names no revision", { field: "If-Match" });
  }
  if (fromHeader !== undefined && fromBody !== undefined && fromHeader !== fromBody) {
    throw new AppError("invalid_argument", "If-Match and base_revision name different revisions", { field: "base_revision" });
  }
  const base = fromBody ?? fromHeader;
  if (base === undefined) throw new AppError("invalid_argument", "Say which revision the edit is based on: base_revision or If-Match", { field: "base_revision" });
  return base;
}

export const transcriptEditingRoutes: FastifyPluginAsyncZod<{ client: Client<typeof TranscriptionService> }> = async (app, { client }) => {
  app.put(
    "/api/v1/transcriptions/:id/result",
    {
      schema: {
        operationId: "saveTranscript",
        tags: ["transcript editor"],
        summary: "Save an edited transcript as a new revision (word timings kept; If-Match or base_revision; 409 when stale)",
        security: security.sessionOrApiKey,
        params: idParams,
        body: saveSchema,
        response: { 200: savedSchema, ...errors },
      },
    },
    async (request, reply) => {
      const baseRevision = baseRevisionOf(request, request.body.base_revision);
      const answer = await client.saveTranscript({
        userId: signedInUserId(request),
        id: request.params.id,
        baseRevision,
        segments: request.body.segments.map((s) => ({
          ...(s.id !== undefined ? { id: s.id } : {}),
          text: s.text,
          ...(s.speaker !== undefined ? { speaker: s.speaker } : {}),
        })),
        changesOnly: true,
      });
      if (!answer.revision || !answer.result) throw new AppError("not_found", "Transcription not found");
      reply.header("etag", etagOf(answer.result.revision)).header("cache-control", "private, no-cache");
      return { revision: toRevisionBody(answer.revision), changed: toResultBody(answer.result), segment_ids: answer.segmentIds };
    },
  );

  app.get(
    "/api/v1/transcriptions/:id/revisions",
    {
      schema: {
        operationId: "listTranscriptRevisions",
        tags: ["transcript editor"],
        summary: "The transcript's revisions, newest first: who, when, what changed",
        security: security.sessionOrApiKey,
        params: idParams,
        response: {
          200: z.object({ revisions: z.array(revisionSchema), current_revision: z.number().int() }).meta({ id: "TranscriptRevisionList", description: "The transcript's revisions, newest first, and the current one" }),
          ...errors,
        },
      },
    },
    async (request) => {
      const answer = await client.listRevisions({ userId: signedInUserId(request), id: request.params.id });
      return { revisions: answer.revisions.map(toRevisionBody), current_revision: answer.currentRevision };
    },
  );

  app.get(
    "/api/v1/transcriptions/:id/revisions/:rev",
    {
      schema: {
        operationId: "getTranscriptRevision",
        tags: ["transcript editor"],
        summary: "One revision with its segments and words (ETag)",
        security: security.sessionOrApiKey,
        params: revisionParams,
        response: { 200: revisionWithResult, ...errors },
      },
    },
    async (request, reply) => {
      const answer = await client.getRevision({ userId: signedInUserId(request), id: request.params.id, revision: request.params.rev });
      return withRevision(reply, answer);
    },
  );

  app.post(
    "/api/v1/transcriptions/:id/revisions/:rev/restore",
    {
      schema: {
        operationId: "restoreTranscriptRevision",
        tags: ["transcript editor"],
        summary: "Make an older revision current again, as a new revision (If-Match optional)",
        security: security.sessionOrApiKey,
        params: revisionParams,
        response: { 200: revisionWithResult, ...errors },
      },
    },
    async (request, reply) => {
      const header = request.headers["if-match"];
      const baseRevision = typeof header === "string" && header.trim() ? baseRevisionOf(request, undefined) : undefined;
      const answer = await client.restoreRevision({
        userId: signedInUserId(request),
        id: request.params.id,
        revision: request.params.rev,
        ...(baseRevision !== undefined ? { baseRevision } : {}),
      });
      return withRevision(reply, answer);
    },
  );

  app.get(
    "/api/v1/search",
    {
      schema: {
        operationId: "searchTranscripts",
        tags: ["transcript editor"],
        summary: "Full-text search over the signed-in user's transcripts (content and names), with highlighted snippets and times",
        security: security.session,
        querystring: z.object({
          q: z.string().min(1).max(200).describe('Words, "quoted phrases", or, -excluded; accents and word forms do not matter'),
          limit: z.coerce.number().int().min(1).max(100).default(20),
          offset: z.coerce.number().int().min(0).max(100_000).default(0),
        }),
        response: { 200: searchSchema, 400: apiErrorSchema, 401: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const { q, limit, offset } = request.query;
      const answer = await client.searchTranscripts({ userId: signedInUserId(request), query: q, limit, offset });
      return {
        total_count: answer.totalCount,
        total_capped: answer.totalCapped,
        hits: answer.hits.map((h) => ({
          transcription_id: h.transcriptionId,
          display_name: h.displayName,
          segment_id: h.segmentId ?? null,
          start: h.start,
          end: h.end,
          snippet: h.snippet,
        })),
      };
    },
  );
};
