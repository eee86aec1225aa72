import { createHash } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { AppError, enumNames, resultJson, speakerJson } from "@transcribe/platform";
import type { MediaService } from "@transcribe/proto/media/v1/media";
import {
  Provider,
  ResponseFormat,
  ResponseFormatSchema,
  TimestampGranularity,
  TimestampGranularitySchema,
  type TranscriptionStatus,
  TranscriptionStatusSchema,
  type Model,
  type Transcription,
  type TranscriptionListItem,
  type TranscriptionResult,
  type TranscriptionService,
} from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { providerName, providerNames, speechProviders } from "../extension-points.js";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";

/**
 * Transcriptions (docs/requirements.md "Entities" for settings, list item and detail, "Validation" for the rules; docs/api.md).
 * The rules and their messages live in the transcription service; these schemas check
 * shapes only, so a person sees the words of docs/requirements.md ('Please select a language').
 *
 * Live status: GET list and detail answer with an ETag; a client polling with
 * If-None-Match gets 304 with no body while nothing changed (docs/api.md).
 */

const transcriptionStatus = enumNames<TranscriptionStatus>(TranscriptionStatusSchema);
/** The statuses a listed transcription can have: the proto's, without "deleted" (only a deletion's answer says it). */
const statusValues = transcriptionStatus.names.filter((name) => name !== "deleted") as [string, ...string[]];
/** The API's name of a status (an unset one reads as pending). */
const statusName = (status: TranscriptionStatus) => transcriptionStatus.name(status) ?? "pending";

// The settings' names are the proto enums' (verbose_json, word…); providers come from extension-points.
const responseFormats = enumNames<ResponseFormat>(ResponseFormatSchema);
const granularities = enumNames<TimestampGranularity>(TimestampGranularitySchema);

export const modelSchema = z
  .object({
    id: z.string(),
    provider: z.enum(providerNames),
    name: z.string(),
    languages: z.array(z.string()).describe('Language codes the model accepts; "auto" detects the language'),
    translation: z.boolean().describe("Whether translate_to_en is accepted"),
    available: z.boolean(),
    preparing: z
      .boolean()
      .optional()
      .describe("Not runnable yet but being prepared (the local speech engine or its weights): a job may be started and waits; reason says how far"),
    reason: z.string().optional().describe("Why the model cannot run here (or a note about it)"),
    present: z.boolean().optional().describe("Local models: whether the weights are on this server"),
    download_bytes: z.number().int().optional().describe("Local models: size of the weights to download, in bytes"),
    ram_bytes: z.number().int().optional().describe("Local models: memory one engine holding the model needs (int8 on CPU), in bytes"),
    download: z
      .object({ done_bytes: z.number().int(), total_bytes: z.number().int().optional().describe("Unset until the model hub said") })
      .meta({ id: "ModelDownloadProgress", description: "Local models: a download running now" })
      .optional(),
  })
  .meta({ id: "Model", description: "A speech model of the catalog" });

/** A catalog entry on the wire (snake_case). */
export function modelJson(m: Model): z.infer<typeof modelSchema> {
  return {
    id: m.id,
    provider: providerName(m.provider),
    name: m.name,
    languages: m.languages,
    translation: m.translation,
    available: m.available,
    ...(m.preparing ? { preparing: true } : {}),
    ...(m.reason ? { reason: m.reason } : {}),
    ...(m.provider === Provider.LOCAL ? { present: m.present } : {}),
    ...(m.downloadBytes !== undefined ? { download_bytes: Number(m.downloadBytes) } : {}),
    ...(m.ramBytes !== undefined ? { ram_bytes: Number(m.ramBytes) } : {}),
    ...(m.downloadDoneBytes !== undefined
      ? { download: { done_bytes: Number(m.downloadDoneBytes), ...(m.downloadTotalBytes !== undefined ? { total_bytes: Number(m.downloadTotalBytes) } : {}) } }
      : {}),
  };
}

// The service says "1 to 20" in its own words; past int32 the call could not even be encoded (a 500).
const speakerCount = z.number().int().min(-2_147_483_648).max(2_147_483_647);

export const settingsSchema = z
  .object({
    model: z.string().max(100).optional().describe("A catalog model id; default whisper-base"),
    language: z.string().max(10).describe('A language code, or "auto"; empty is refused with \'Please select a language\''),
    translate_to_en: z.boolean().default(false),
    provider: z.enum(providerNames).optional(),
    response_format: z.enum(["json", "verbose_json", "text"]).optional(),
    timestamp_granularities: z.array(z.enum(["segment", "word"])).optional(),
    temperature: z.number().optional().describe("0 to 1, default 0"),
    prompt: z.string().max(2000).optional(),
    diarize: z.boolean().optional().describe("Identify speakers (who said what); default false"),
    min_speakers: speakerCount.optional().describe("1 to 20, with diarize; unset: estimated"),
    max_speakers: speakerCount.optional().describe("1 to 20, at least min_speakers, with diarize; unset: estimated"),
    vocabulary: z.array(z.string()).optional().describe("Extra terms for this file only: at most 100, 100 characters each"),
    use_vocabulary: z.boolean().optional().describe("Use the user's vocabulary (GET /api/v1/vocabulary); default true"),
  })
  .meta({ id: "TranscriptionSettings", description: "How to transcribe" });

const createSchema = z.object({ file_id: z.string().min(1).max(64), settings: settingsSchema }).meta({ id: "StartTranscription", description: "The uploaded file (ready or still processing) and the settings" });
const createResponseSchema = z
  .object({
    job_id: z.string(),
    transcription_id: z.string().describe("Open /transcript/{transcription_id}"),
    message: z.string().optional(),
  })
  .meta({ id: "StartTranscriptionResponse", description: "The job started; poll the transcription until completed or failed" });

export const listItemSchema = z
  .object({
    id: z.string(),
    display_name: z.string(),
    duration: z.number().nonnegative(),
    model: z.string(),
    status: z.enum(statusValues),
    uploaded_at: z.iso.datetime(),
  })
  .meta({ id: "TranscriptionListItem", description: "A transcription as the dashboard lists it" });

const listSchema = z
  .object({ transcriptions: z.array(listItemSchema), total_count: z.number().int().nonnegative() })
  .meta({ id: "TranscriptionList", description: "One page of the caller's transcriptions, newest first, with the total" });

const wordSchema = z
  .object({
    word: z.string(),
    start: z.number().describe("Seconds"),
    end: z.number().describe("Seconds"),
    probability: z.number().optional(),
    speaker: z.string().optional().describe("Speaker id (S1, S2…) when speakers were identified"),
  })
  .meta({ id: "Word", description: "A word with its timing" });
const segmentSchema = z.object({
  id: z.number().int().describe("Stable within the transcript: the engine's position; segments added by an edit get new ids"),
  start: z.number(),
  end: z.number(),
  text: z.string(),
  words: z.array(wordSchema).optional().describe("When word timestamps were requested"),
  speaker: z.string().optional().describe("Speaker id (S1, S2…); its name is in result.speakers"),
}).meta({ id: "Segment", description: "A timed stretch of the transcript" });
export const speakerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    voice_id: z.string().optional().describe("The saved voice (voice library) this speaker was recognised as or saved to"),
    confidence: z.number().min(0).max(1).optional().describe("Set while the name came from the voice library: how sure the match is, 0 to 1"),
  })
  .meta({ id: "Speaker", description: "A speaker of the transcript and the name people gave it" });
export const speakerTurnSchema = z
  .object({
    start: z.number().describe("Seconds"),
    end: z.number().describe("Seconds"),
    speaker: z.string().describe("Speaker id (S1, S2…); its name is in result.speakers"),
  })
  .meta({ id: "SpeakerTurn", description: "A stretch of one voice as the diarizer heard it, speech between words included" });

export const resultSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    language: z.string(),
    duration: z.number(),
    revision: z.number().int().describe('The revision these segments are; its ETag is "rev-<revision>" (PUT …/result If-Match)'),
    segments: z.array(segmentSchema),
    speakers: z.array(speakerSchema).describe("In order of first appearance; empty without speakers"),
    speakers_note: z.string().optional().describe("Why no speakers were identified although they were asked for"),
    speaker_turns: z
      .array(speakerTurnSchema)
      .describe("Who spoke when, in time order, as the diarizer heard it (not changed by edits); empty without speakers. The rttm export is these turns"),
  })
  .meta({ id: "TranscriptionResult", description: "A transcript: its text, timed segments (words when asked for) and speakers" });

/** A result as the contract shows it; words only come when the service sent them (WORD granularity). */
export function toResultBody(r: TranscriptionResult, withWords = true): z.infer<typeof resultSchema> {
  return resultJson(r, withWords);
}

export const detailSchema = z
  .object({
    id: z.string(),
    display_name: z.string(),
    status: z.enum(transcriptionStatus.names as [string, ...string[]]),
    error: z.string().optional(),
    progress: z.string().optional().describe('What a live job waits for, e.g. "Downloading Whisper medium: 120 MB of 1.5 GB"'),
    live_text: z
      .string()
      .optional()
      .describe("For a transcription made by a live session: the text settled while it was spoken, until the full-quality pass gives `result`"),
    config: z
      .object({
        model: z.string(),
        language: z.string(),
        timestamp_granularities: z.array(z.enum(["segment", "word"])),
        diarize: z.boolean(),
        min_speakers: z.number().int().optional(),
        max_speakers: z.number().int().optional(),
      })
      .optional(),
    audio_file: z.object({ file_id: z.string(), file_name: z.string(), content_type: z.string().optional() }),
    result: resultSchema.nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({
    id: "TranscriptionDetail",
    description: "A transcription with its settings, its file and, once completed, its result",
    examples: [
      {
        id: "5b0c7a52-8f1e-4d0a-9a57-2d1f0c6e9b11",
        display_name: "board-meeting.wav",
        status: "completed",
        config: { model: "whisper-base", language: "en", timestamp_granularities: ["segment", "word"] },
        audio_file: { file_id: "0f7d3c2e-1b4a-4f6e-8c9d-3a2b1c0d9e8f", file_name: "board-meeting.wav", content_type: "audio/wav" },
        result: {
          id: "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
          text: "Quarterly numbers for the board.",
          language: "en",
          duration: 2.4,
          segments: [
            {
              id: 0,
              start: 0,
              end: 2.4,
              text: "Quarterly numbers for the board.",
              words: [
                { word: "Quarterly", start: 0, end: 0.62, probability: 0.97 },
                { word: "numbers", start: 0.62, end: 1.1, probability: 0.99 },
                { word: "for", start: 1.1, end: 1.3, probability: 0.99 },
                { word: "the", start: 1.3, end: 1.45, probability: 0.99 },
                { word: "board.", start: 1.45, end: 2.4, probability: 0.98 },
              ],
            },
          ],
        },
        created_at: "2026-11-25T09:14:03.000Z",
        updated_at: "2026-11-25T09:14:21.000Z",
      },
    ],
  });

const audioUrlSchema = z.object({ url: z.string(), expires_at: z.iso.datetime() }).meta({ id: "TranscriptionAudioUrl", description: "A short-lived URL of the audio (range requests allowed)" });

const idParams = z.object({ id: z.string().min(1).max(64).describe("The transcription's id") });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  // The services take an int32 offset; past it the call failed with a 500.
  offset: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
  status: z.enum(statusValues).optional(),
  q: z.string().max(255).optional(),
});

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema };
/** Starting a job counts against the free trial (402 past it). */
const startErrors = { ...errors, 402: apiErrorSchema };
const modelListSchema = z.object({ models: z.array(modelSchema) }).meta({ id: "ModelList", description: "Every model of the catalog, with whether it can run here now" });
const renameSchema = z.object({ new_name: z.string().max(10_000).describe("1 to 255 characters after trimming") }).meta({ id: "RenameTranscription", description: "The new display name" });
const retrySchema = z.object({ settings: settingsSchema.optional() }).meta({ id: "RetryTranscription", description: "Other settings for the new run; the old ones when absent" });
const retryResponseSchema = z.object({ job_id: z.string() }).meta({ id: "RetryTranscriptionResponse", description: "The new job; poll the transcription" });
const deletedSchema = z.null().describe("Deleted");
const notModifiedSchema = z.null().describe("Not modified");

const speakerListSchema = z.object({ speakers: z.array(speakerSchema) }).meta({ id: "SpeakerList", description: "Every speaker of the transcript with its name after the rename" });

function speakerOf(sp: Parameters<typeof speakerJson>[0]): z.infer<typeof speakerSchema> {
  return speakerJson(sp);
}

function userId(request: FastifyRequest): string {
  const id = request.user?.id;
  if (!id) throw new AppError("unauthenticated", "Not signed in");
  return id;
}

const iso = (t: { seconds: bigint; nanos: number } | undefined) => (t ? timestampDate(t as never) : new Date(0)).toISOString();

function toItem(item: TranscriptionListItem): z.infer<typeof listItemSchema> {
  return {
    id: item.id,
    display_name: item.displayName,
    duration: item.duration,
    model: item.model,
    status: statusName(item.status) === "deleted" ? "pending" : statusName(item.status),
    uploaded_at: iso(item.uploadedAt),
  };
}

const granularityName = (g: TimestampGranularity) => (granularities.name(g) ?? "segment") as "segment" | "word";

function toDetail(t: Transcription): z.infer<typeof detailSchema> {
  const withWords = t.config?.timestampGranularities.includes(TimestampGranularity.WORD) ?? false;
  return {
    id: t.id,
    display_name: t.displayName,
    status: statusName(t.status),
    ...(t.error ? { error: t.error } : {}),
    ...(t.progress ? { progress: t.progress } : {}),
    ...(t.liveText ? { live_text: t.liveText } : {}),
    ...(t.config
      ? {
          config: {
            model: t.config.model,
            language: t.config.language,
            timestamp_granularities: t.config.timestampGranularities.map(granularityName),
            diarize: t.config.diarize,
            ...(t.config.minSpeakers !== undefined ? { min_speakers: t.config.minSpeakers } : {}),
            ...(t.config.maxSpeakers !== undefined ? { max_speakers: t.config.maxSpeakers } : {}),
          },
        }
      : {}),
    audio_file: {
      file_id: t.audioFile?.fileId ?? "",
      file_name: t.audioFile?.fileName ?? "",
      ...(t.audioFile?.contentType ? { content_type: t.audioFile.contentType } : {}),
    },
    result: t.result ? toResultBody(t.result, withWords) : null,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

function toSettings(s: z.infer<typeof settingsSchema>) {
  return {
    model: s.model ?? "",
    language: s.language,
    translateToEn: s.translate_to_en,
    provider: (s.provider && speechProviders.value(s.provider)) || Provider.UNSPECIFIED,
    responseFormat: (s.response_format && responseFormats.value(s.response_format)) || ResponseFormat.UNSPECIFIED,
    timestampGranularities: (s.timestamp_granularities ?? []).map((g) => granularities.value(g) ?? TimestampGranularity.SEGMENT),
    temperature: s.temperature ?? 0,
    ...(s.prompt ? { prompt: s.prompt } : {}),
    ...(s.diarize !== undefined ? { diarize: s.diarize } : {}),
    ...(s.min_speakers !== undefined ? { minSpeakers: s.min_speakers } : {}),
    ...(s.max_speakers !== undefined ? { maxSpeakers: s.max_speakers } : {}),
    vocabulary: s.vocabulary ?? [],
    ...(s.use_vocabulary !== undefined ? { useVocabulary: s.use_vocabulary } : {}),
  };
}

/**
 * Answers 304 when the client already has this body (If-None-Match), else the body with its
 * ETag. The body is serialised once, here, and that text is both hashed and sent: the
 * route's zod schema still types it (z.infer) and documents it, but is not run again on
 * the way out (decision 0027).
 */
function sendWithEtag(request: FastifyRequest, reply: FastifyReply, json: string): FastifyReply {
  const etag = `W/"${createHash("sha1").update(json).digest("base64url")}"`;
  reply.header("etag", etag).header("cache-control", "private, no-cache");
  if (request.headers["if-none-match"] === etag) return reply.code(304).send(null);
  return reply.type("application/json; charset=utf-8").send(json);
}

const RESULT_PLACEHOLDER = ',"result":null,';

/**
 * The detail's JSON with the service's result_json spliced in as `result`. Inside a JSON
 * string every quote is escaped, so `,"result":null,` can only be the detail's own field.
 */
function detailJson(t: Transcription): string {
  const head = JSON.stringify(toDetail(t));
  if (t.resultJson.length === 0) return head;
  const at = head.indexOf(RESULT_PLACEHOLDER);
  if (at < 0) throw new Error("the detail has no result field to fill");
  return `${head.slice(0, at)},"result":${utf8Of(t.resultJson)},${head.slice(at + RESULT_PLACEHOLDER.length)}`;
}

const utf8Of = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");

export const transcriptionRoutes: FastifyPluginAsyncZod<{
  client: Client<typeof TranscriptionService>;
  media: Client<typeof MediaService>;
}> = async (app, { client, media }) => {
  const common = { tags: ["transcriptions"], security: security.sessionOrApiKey };

  app.get(
    "/api/v1/models",
    { schema: { ...common, operationId: "listModels", summary: "The speech model catalog, with whether each model can run here", response: { 200: modelListSchema, 401: apiErrorSchema, 503: apiErrorSchema } } },
    async () => {
      const { models } = await client.listModels({});
      return { models: models.map(modelJson) };
    },
  );

  app.post(
    "/api/v1/transcriptions",
    { schema: { ...common, operationId: "createTranscription", summary: "Start transcribing an uploaded file", body: createSchema, response: { 200: createResponseSchema, ...startErrors } } },
    async (request) => {
      const answer = await client.createTranscription({ userId: userId(request), fileId: request.body.file_id, settings: toSettings(request.body.settings) });
      return { job_id: answer.jobId, transcription_id: answer.transcriptionId, ...(answer.message ? { message: answer.message } : {}) };
    },
  );

  app.get(
    "/api/v1/transcriptions",
    { schema: { ...common, operationId: "listTranscriptions", summary: "The caller's transcriptions, newest first (ETag: poll with If-None-Match)", querystring: listQuery, response: { 200: listSchema, 304: notModifiedSchema, ...errors } } },
    async (request, reply) => {
      const { limit, offset, status, q } = request.query;
      const answer = await client.listTranscriptions({
        userId: userId(request),
        limit,
        offset,
        ...(status ? { status: transcriptionStatus.value(status) } : {}),
        ...(q ? { query: q } : {}),
        itemsAsJson: true,
      });
      // The service's transcriptions_json is listSchema's `transcriptions` array as bytes
      // (decision 0027); a service from before it answers with messages.
      const items = answer.transcriptionsJson.length > 0 ? utf8Of(answer.transcriptionsJson) : JSON.stringify(answer.transcriptions.map(toItem));
      return sendWithEtag(request, reply, `{"transcriptions":${items},"total_count":${answer.totalCount}}`);
    },
  );

  app.get(
    "/api/v1/transcriptions/:id",
    { schema: { ...common, operationId: "getTranscription", summary: "One transcription with its settings, file and result (ETag)", params: idParams, response: { 200: detailSchema, 304: notModifiedSchema, ...errors } } },
    async (request, reply) => {
      const { transcription } = await client.getTranscription({ userId: userId(request), id: request.params.id, resultAsJson: true });
      if (!transcription) throw new AppError("not_found", "Transcription not found");
      return sendWithEtag(request, reply, detailJson(transcription));
    },
  );

  app.patch(
    "/api/v1/transcriptions/:id/rename",
    { schema: { ...common, operationId: "renameTranscription", summary: "Rename a transcription", params: idParams, body: renameSchema, response: { 200: listItemSchema, ...errors } } },
    async (request) => {
      const { transcription } = await client.renameTranscription({ userId: userId(request), id: request.params.id, newName: request.body.new_name });
      return toItem(transcription!);
    },
  );

  app.delete(
    "/api/v1/transcriptions/:id",
    { schema: { ...common, operationId: "deleteTranscription", summary: "Delete a transcription (its audio is removed too)", params: idParams, response: { 204: deletedSchema, ...errors } } },
    async (request, reply) => {
      await client.deleteTranscription({ userId: userId(request), id: request.params.id });
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/api/v1/transcriptions/:id/retry",
    {
      schema: {
        ...common,
        operationId: "retryTranscription",
        summary: "Run a finished transcription again, optionally with other settings, without a new upload",
        params: idParams,
        body: retrySchema.optional(),
        response: { 200: retryResponseSchema, ...startErrors },
      },
    },
    async (request) => {
      const settings = request.body?.settings;
      const answer = await client.retryTranscription({ userId: userId(request), id: request.params.id, ...(settings ? { settings: toSettings(settings) } : {}) });
      return { job_id: answer.jobId };
    },
  );

  app.get(
    "/api/v1/transcriptions/:id/audio-url",
    { schema: { ...common, operationId: "getTranscriptionAudioUrl", summary: "A short-lived URL to play the transcription's audio", params: idParams, response: { 200: audioUrlSchema, ...errors } } },
    async (request) => {
      const user = userId(request);
      const { transcription } = await client.getTranscription({ userId: user, id: request.params.id });
      const fileId = transcription?.audioFile?.fileId;
      if (!fileId) throw new AppError("not_found", "Transcription not found");
      const answer = await media.getAudioUrl({ userId: user, fileId });
      return { url: answer.url, expires_at: iso(answer.expiresAt) };
    },
  );

  // Speakers (decision 0020).
  app.patch(
    "/api/v1/transcriptions/:id/speakers/:speaker_id",
    {
      schema: {
        ...common,
        operationId: "renameSpeaker",
        summary: "Rename a speaker everywhere in the transcript and its exports (1 to 80 characters, trimmed)",
        params: z.object({ id: z.string().min(1).max(64), speaker_id: z.string().min(1).max(16) }),
        body: z.object({ name: z.string().max(10_000) }).meta({ id: "RenameSpeaker", description: "The speaker's new name" }),
        response: { 200: speakerListSchema, 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema },
      },
    },
    async (request) => {
      const answer = await client.renameSpeaker({
        userId: userId(request),
        id: request.params.id,
        speakerId: request.params.speaker_id,
        name: request.body.name,
      });
      return { speakers: answer.speakers.map(speakerOf) };
    },
  );

  app.delete(
    "/api/v1/transcriptions/:id/speakers/:speaker_id/voice",
    {
      schema: {
        ...common,
        operationId: "unmatchSpeaker",
        summary: "Undo a voice-library match: the speaker goes back to its anonymous id (S1, S2…) here and in exports",
        params: z.object({ id: z.string().min(1).max(64), speaker_id: z.string().min(1).max(16) }),
        response: { 200: speakerListSchema, 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema },
      },
    },
    async (request) => {
      const answer = await client.unmatchSpeaker({ userId: userId(request), id: request.params.id, speakerId: request.params.speaker_id });
      return { speakers: answer.speakers.map(speakerOf) };
    },
  );

  app.post(
    "/api/v1/transcriptions/:id/diarize",
    {
      schema: {
        ...common,
        operationId: "diarizeTranscription",
        summary: "Identify speakers again on a finished transcript, without transcribing it again",
        params: idParams,
        body: z.object({ min_speakers: speakerCount.optional(), max_speakers: speakerCount.optional() }).meta({ id: "DiarizeRequest", description: "Optional bounds on the number of speakers (1 to 20); unset: estimated" }).optional(),
        response: { 200: z.object({ job_id: z.string() }).meta({ id: "DiarizeResponse", description: "The job that identifies the speakers; poll the transcription for its status" }), 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const answer = await client.diarizeTranscription({
        userId: userId(request),
        id: request.params.id,
        ...(body.min_speakers !== undefined ? { minSpeakers: body.min_speakers } : {}),
        ...(body.max_speakers !== undefined ? { maxSpeakers: body.max_speakers } : {}),
      });
      return { job_id: answer.jobId };
    },
  );
};
