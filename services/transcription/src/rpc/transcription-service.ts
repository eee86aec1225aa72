import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Client, type ServiceImpl } from "@connectrpc/connect";
import { AppError, enqueueEvents, fromConnectError, newEvent, type Logger } from "@transcribe/platform";
import type { BillingService } from "@transcribe/proto/billing/v1/billing";
import {
  TranscriptDeletedSchema,
  TranscriptionCreatedSchema,
  TranscriptRenamedSchema,
  TranscriptSpeakerRenamedSchema,
} from "@transcribe/proto/events/v1/events";
import { FileStatus, type File, type MediaService } from "@transcribe/proto/media/v1/media";
import {
  ModelSchema,
  type TranscriptionService,
  TranscriptionStatus,
} from "@transcribe/proto/transcription/v1/transcription";
import { sql } from "kysely";
import { catalogWithAvailability, availabilityOf, type Availability, type CatalogEnvironment } from "../catalog.js";
import { removeLocalModel, startModelDownload } from "../model-admin.js";
import {
  findTranscription,
  findTranscriptionVersioned,
  insertJob,
  json,
  listPage,
  listTranscriptions,
  listVersion,
  lockTranscription,
  type Db,
} from "../db/repository.js";
import { AUTO_LANGUAGE } from "../domain/languages.js";
import { engineModelFor, type ModelDefinition } from "../domain/models.js";
import { providerToProto, settingsRequestOf, validateName, validateSettings, type JobSettings, type SettingsRequest } from "../domain/settings.js";
import { validateSpeakerCounts, validateSpeakerName, type Speaker } from "../domain/speakers.js";
import { activeStatuses, canRetry } from "../domain/status.js";
import { latestEngineState } from "../worker/engine-state.js";
import { listRevisions } from "../db/revisions.js";
import { readRevision, restoreRevision, saveEdit, transcriptionNotFound } from "../editing.js";
import { searchTranscripts } from "../search.js";
import { readVocabulary, writeVocabulary } from "../db/vocabulary.js";
import { validateVocabulary } from "../domain/vocabulary.js";
import { fromProtoStatus, vocabularyFromProto, vocabularyToProto, toDetail, toListItem, toListJson, toResult, toResultJson, toRevision, toSpeaker, wantsWords } from "./mapping.js";
import { createListCache, createResultCache } from "./result-cache.js";
import { voiceLibraryHandlers } from "./voice-library.js";
import { saveSpeakerVoice } from "../voices.js";

export interface TranscriptionServiceDeps {
  db: Db;
  media: Client<typeof MediaService>;
  billing?: Client<typeof BillingService> | undefined;
  catalog: CatalogEnvironment;
  maxAttempts: number;
  logger: Logger;
  /** The engine's Python, for an administrator's model download (WHISPER_PYTHON). */
  python?: string | undefined;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The settled text of the longest live session (LIVE_MAX_SECONDS, an hour) is far below this. */
const MAX_LIVE_TEXT = 1_000_000;

function requireUser(userId: string): string {
  if (!userId) throw new AppError("invalid_argument", "user_id is required");
  return userId;
}

const notFound = () => new AppError("not_found", "Transcription not found");

/** Ids that are not uuids cannot exist; answering NOT_FOUND keeps PostgreSQL from a cast error. */
function requireId(id: string): string {
  if (!uuidPattern.test(id)) throw notFound();
  return id;
}

export function transcriptionServiceImpl(deps: TranscriptionServiceDeps): ServiceImpl<typeof TranscriptionService> {
  const { db } = deps;
  const resultCache = createResultCache();
  const listCache = createListCache();

  async function fileOf(userId: string, fileId: string): Promise<File> {
    if (!uuidPattern.test(fileId)) throw new AppError("not_found", "File not found", { field: "file_id" });
    try {
      const { file } = await deps.media.getFile({ userId, fileId });
      if (!file) throw new AppError("not_found", "File not found", { field: "file_id" });
      return file;
    } catch (error) {
      const appError = fromConnectError(error);
      if (appError.code === "not_found") throw new AppError("not_found", "File not found", { field: "file_id" });
      throw appError;
    }
  }

  function requireProcessed(file: File): void {
    if (file.status === FileStatus.UPLOADING || file.status === FileStatus.UNSPECIFIED) {
      throw new AppError("failed_precondition", "File is not processed yet: its upload has not been completed", { field: "file_id" });
    }
    if (file.status === FileStatus.FAILED) {
      throw new AppError("failed_precondition", `File could not be processed${file.error ? `: ${file.error}` : ""}`, {
        field: "file_id",
      });
    }
  }

  let quotaUnimplementedLogged = false;
  /** Asks billing; an allowed answer reserves the minutes for jobId until the job completes. */
  async function checkQuota(userId: string, seconds: number, jobId: string): Promise<void> {
    if (!deps.billing) return;
    let answer;
    try {
      answer = await deps.billing.checkQuota({ userId, audioSeconds: Math.max(seconds, 1), jobId });
    } catch (error) {
      // A billing service that does not implement CheckQuota yet (this build) enforces no
      // quota; any other failure refuses the job rather than give free usage silently.
      if (error instanceof ConnectError && error.code === Code.Unimplemented) {
        if (!quotaUnimplementedLogged) deps.logger.warn("billing does not implement CheckQuota; no trial limit is enforced");
        quotaUnimplementedLogged = true;
        return;
      }
      const appError = fromConnectError(error);
      throw new AppError("unavailable", `Usage limits cannot be checked right now: ${appError.message}`);
    }
    if (!answer.allowed) {
      // detail.reason lets the BFF answer with its distinct trial_limit_exceeded code.
      throw new AppError(
        "resource_exhausted",
        `Trial limit reached: you have used ${answer.used} of your ${answer.limit} free minutes (${answer.remaining} left) ` +
          `and this file needs ${answer.requested}. Upgrade to premium to transcribe more.`,
        { reason: "trial_limit_exceeded", used: answer.used, limit: answer.limit, remaining: answer.remaining, requested: answer.requested },
      );
    }
  }

  async function checkedSettings(input: SettingsRequest): Promise<{ settings: JobSettings; engineModel: string; message?: string }> {
    const { settings, model } = validateSettings(input);
    const availability = availabilityOf(model, deps.catalog, model.provider === "local" ? await latestEngineState(db) : undefined);
    // A job for an engine still being prepared is accepted: the worker holds it until ready.
    if (!availability.available && !availability.preparing) throw new AppError("failed_precondition", `${model.name}: ${availability.reason}`, { field: "model" });
    const { engineModel, message } = engineModelFor(model, settings.translateToEn);
    return { settings, engineModel, ...(message ? { message } : {}) };
  }

  const adminDeps = () => ({ db, catalog: deps.catalog, python: deps.python ?? "python3", logger: deps.logger });

  return {
    async listModels() {
      return {
        models: catalogWithAvailability(deps.catalog, await latestEngineState(db)).map(({ model, ...availability }) => modelToProto(model, availability)),
      };
    },

    async downloadModel(request) {
      const { model, availability } = startModelDownload(adminDeps(), request.modelId);
      return { model: modelToProto(model, availability) };
    },

    async removeModel(request) {
      const { model, removed } = await removeLocalModel(adminDeps(), request.modelId);
      return { model: modelToProto(model, availabilityOf(model, deps.catalog)), removed };
    },

    async createTranscription(request) {
      const userId = requireUser(request.userId);
      if ((request.liveText?.length ?? 0) > MAX_LIVE_TEXT) {
        throw new AppError("invalid_argument", `live_text is longer than ${MAX_LIVE_TEXT} characters`, { field: "live_text" });
      }
      const { settings, engineModel, message } = await checkedSettings(request.settings ?? {});
      const file = await fileOf(userId, request.fileId);
      requireProcessed(file);
      const id = randomUUID();
      const jobId = randomUUID();
      await checkQuota(userId, file.duration, jobId);
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto("transcriptions")
          .values({
            id,
            user_id: userId,
            file_id: file.id,
            display_name: file.fileName,
            file_name: file.fileName,
            content_type: file.contentType || null,
            duration: file.duration,
            uploaded_at: file.createdAt ? timestampDate(file.createdAt) : new Date(),
            raw_key: file.rawKey,
            processed_key: file.processedKey ?? null,
            status: "pending",
            error: null,
            current_job_id: jobId,
            settings: json(settings),
            result_id: null,
            deleted_at: null,
            ...(request.liveText ? { live_text: request.liveText } : {}),
          })
          .execute();
        await insertJob(trx, { id: jobId, transcriptionId: id, userId, settings, engineModel, maxAttempts: deps.maxAttempts });
        await enqueueEvents(trx, [newEvent(TranscriptionCreatedSchema, { jobId, userId })]);
      });
      deps.logger.info({ transcriptionId: id, jobId, model: settings.model, engineModel }, "transcription created");
      return { jobId, transcriptionId: id, ...(message ? { message } : {}) };
    },

    async listTranscriptions(request) {
      const userId = requireUser(request.userId);
      if (request.limit < 0) throw new AppError("invalid_argument", "limit must not be negative", { field: "limit" });
      if (request.offset < 0) throw new AppError("invalid_argument", "offset must not be negative", { field: "offset" });
      let status;
      if (request.status !== undefined && request.status !== TranscriptionStatus.UNSPECIFIED) {
        status = fromProtoStatus(request.status);
        if (!status || status === "deleted") throw new AppError("invalid_argument", "Unknown status filter", { field: "status" });
      }
      const filter = {
        limit: request.limit === 0 ? 20 : Math.min(request.limit, 100),
        offset: request.offset,
        status,
        query: request.query?.trim() || undefined,
      };
      if (request.itemsAsJson) {
        // The API's own read (decision 0027): the page from the cache while none of the
        // user's rows changed (one statement, the count, instead of two), read after the
        // fingerprint otherwise.
        const { total, fingerprint } = await listVersion(db, userId, filter);
        const key = { userId, ...filter, fingerprint };
        let json = listCache.get(key);
        if (!json) {
          json = toListJson(await listPage(db, userId, filter));
          listCache.set(key, json);
        }
        return { transcriptionsJson: json, totalCount: total };
      }
      const { rows, total } = await listTranscriptions(db, userId, filter);
      return { transcriptions: rows.map(toListItem), totalCount: total };
    },

    async getTranscription(request) {
      const userId = requireUser(request.userId);
      if (!request.resultAsJson) {
        const row = await findTranscription(db, userId, requireId(request.id));
        if (!row) throw notFound();
        const view = await readRevision(db, row, request.revision);
        return { transcription: toDetail(row, view) };
      }
      // The API's own read (decision 0027): the result as JSON bytes, from the cache while
      // the row is unchanged (one query instead of four, no serialising).
      const row = await findTranscriptionVersioned(db, userId, requireId(request.id));
      if (!row) throw notFound();
      const revision = request.revision ?? row.revision;
      const key = { transcriptionId: row.id, rowVersion: row.row_version, revision, withWords: wantsWords(row) };
      let resultJson = revision === 0 ? undefined : resultCache.get(key);
      if (!resultJson) {
        const view = await readRevision(db, row, request.revision);
        if (view) {
          resultJson = toResultJson(view, key.withWords);
          resultCache.set(key, resultJson);
        }
      }
      const transcription = toDetail(row, undefined);
      if (resultJson) transcription.resultJson = resultJson;
      return { transcription };
    },

    async renameTranscription(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const newName = validateName(request.newName);
      const row = await db.transaction().execute(async (trx) => {
        const current = await lockTranscription(trx, userId, id);
        if (!current) throw notFound();
        if (current.display_name === newName) return current;
        const updated = await trx
          .updateTable("transcriptions")
          .set({ display_name: newName, updated_at: sql`now()` })
          .where("id", "=", id)
          .returningAll()
          .executeTakeFirstOrThrow();
        const renamedAt = new Date();
        await enqueueEvents(trx, [
          newEvent(TranscriptRenamedSchema, {
            transcriptId: id,
            userId,
            oldName: current.display_name,
            newName,
            renamedAt: { seconds: BigInt(Math.floor(renamedAt.getTime() / 1000)), nanos: (renamedAt.getTime() % 1000) * 1e6 },
          }),
        ]);
        return updated;
      });
      return { transcription: toListItem(row) };
    },

    async deleteTranscription(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      await db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom("transcriptions")
          .selectAll()
          .where("id", "=", id)
          .where("user_id", "=", userId)
          .where("status", "<>", "deleted")
          .forUpdate()
          .executeTakeFirst();
        if (!current) throw notFound();
        await trx
          .updateTable("transcriptions")
          .set({ status: "deleted", deleted_at: sql`now()`, updated_at: sql`now()` })
          .where("id", "=", id)
          .execute();
        await trx.deleteFrom("transcription_search_segments").where("transcription_id", "=", id).execute();
        // A running job is abandoned: its worker's next heartbeat finds no live job and stops.
        await trx
          .updateTable("transcription_jobs")
          .set({ status: "cancelled", finished_at: sql`now()`, last_error: "Transcription deleted" })
          .where("transcription_id", "=", id)
          .where("status", "in", [...activeStatuses])
          .execute();
        // Media deletes the objects the event names. Another live transcription of the
        // same file still needs them: then the event names none.
        const sharing = await trx
          .selectFrom("transcriptions")
          .select("id")
          .where("file_id", "=", current.file_id)
          .where("user_id", "=", userId)
          .where("id", "<>", id)
          .where("status", "<>", "deleted")
          .executeTakeFirst();
        await enqueueEvents(trx, [
          newEvent(TranscriptDeletedSchema, {
            transcriptId: id,
            userId,
            rawKey: sharing ? "" : current.raw_key,
            processedKey: sharing ? "" : (current.processed_key ?? ""),
          }),
        ]);
      });
      return {};
    },

    async retryTranscription(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const existing = await findTranscription(db, userId, id);
      if (!existing) throw notFound();
      const { settings, engineModel } = await checkedSettings(request.settings ?? settingsRequestOf(existing.settings));
      if (!canRetry(existing.status)) {
        throw new AppError("failed_precondition", "This transcription is still running; wait for it to finish before running it again");
      }
      // Its file deleted since, the run could only fail: say so now, before a job is queued.
      await fileOf(userId, existing.file_id).catch((error: unknown) => {
        throw error instanceof AppError && error.code === "not_found" ? new AppError("failed_precondition", "The audio file no longer exists", { field: "file_id" }) : error;
      });
      const jobId = randomUUID();
      await checkQuota(userId, existing.duration, jobId);
      await db.transaction().execute(async (trx) => {
        // The guard against a concurrent retry: only the caller that moves the row from
        // completed/failed starts a job.
        const moved = await trx
          .updateTable("transcriptions")
          .set({ status: "pending", error: null, current_job_id: jobId, settings: json(settings), updated_at: sql`now()` })
          .where("id", "=", id)
          .where("user_id", "=", userId)
          .where("status", "in", ["completed", "failed"])
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) {
          throw new AppError("failed_precondition", "This transcription is still running; wait for it to finish before running it again");
        }
        await insertJob(trx, { id: jobId, transcriptionId: id, userId, settings, engineModel, maxAttempts: deps.maxAttempts });
        await enqueueEvents(trx, [newEvent(TranscriptionCreatedSchema, { jobId, userId })]);
      });
      return { jobId };
    },

    async renameSpeaker(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const name = validateSpeakerName(request.name);
      const speakers = await db.transaction().execute(async (trx) => {
        const current = await lockTranscription(trx, userId, id);
        if (!current) throw notFound();
        const result = current.result_id
          ? await trx.selectFrom("transcription_results").select(["speakers"]).where("id", "=", current.result_id).executeTakeFirst()
          : undefined;
        const list: Speaker[] = result?.speakers ?? [];
        const old = list.find((s) => s.id === request.speakerId);
        if (!current.result_id || !old) throw new AppError("not_found", "Speaker not found", { field: "speaker_id" });
        // Same name, and not a voice-library match being confirmed: nothing to do.
        if (old.name === name && old.confidence === undefined) return list;
        const voiceId = await saveSpeakerVoice(trx, userId, current.result_id, old, name);
        const updated = list.map((s) => (s.id === old.id ? { id: s.id, name, ...(voiceId ? { voiceId } : {}) } : s));
        await trx.updateTable("transcription_results").set({ speakers: json(updated) }).where("id", "=", current.result_id).execute();
        await trx.updateTable("transcriptions").set({ updated_at: sql`now()` }).where("id", "=", id).execute();
        if (old.name !== name) {
          await enqueueEvents(trx, [
            newEvent(TranscriptSpeakerRenamedSchema, { transcriptId: id, userId, speakerId: old.id, oldName: old.name, newName: name }),
          ]);
        }
        return updated;
      });
      return { speakers: speakers.map(toSpeaker) };
    },

    async unmatchSpeaker(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const speakers = await db.transaction().execute(async (trx) => {
        const current = await lockTranscription(trx, userId, id);
        if (!current) throw notFound();
        const result = current.result_id
          ? await trx.selectFrom("transcription_results").select(["speakers"]).where("id", "=", current.result_id).executeTakeFirst()
          : undefined;
        const list: Speaker[] = result?.speakers ?? [];
        const old = list.find((s) => s.id === request.speakerId);
        if (!current.result_id || !old) throw new AppError("not_found", "Speaker not found", { field: "speaker_id" });
        if (old.confidence === undefined) throw new AppError("not_found", "This speaker was not recognised from your voice library", { field: "speaker_id" });
        const updated = list.map((s) => (s.id === old.id ? { id: s.id, name: s.id } : s));
        await trx.updateTable("transcription_results").set({ speakers: json(updated) }).where("id", "=", current.result_id).execute();
        await trx.updateTable("transcriptions").set({ updated_at: sql`now()` }).where("id", "=", id).execute();
        await enqueueEvents(trx, [
          newEvent(TranscriptSpeakerRenamedSchema, { transcriptId: id, userId, speakerId: old.id, oldName: old.name, newName: old.id }),
        ]);
        return updated;
      });
      return { speakers: speakers.map(toSpeaker) };
    },

    ...voiceLibraryHandlers(db, requireUser),

    async diarizeTranscription(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const counts = validateSpeakerCounts(request.minSpeakers, request.maxSpeakers);
      const existing = await findTranscription(db, userId, id);
      if (!existing) throw notFound();
      if (!existing.result_id) throw new AppError("failed_precondition", "Speakers can be identified only on a finished transcript");
      if (!canRetry(existing.status)) {
        throw new AppError("failed_precondition", "This transcription is still running; wait for it to finish before running it again");
      }
      const { minSpeakers: _min, maxSpeakers: _max, ...rest } = existing.settings;
      const settings: JobSettings = { ...rest, diarize: true, ...counts };
      const jobId = randomUUID();
      await db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable("transcriptions")
          .set({ status: "pending", error: null, current_job_id: jobId, settings: json(settings), updated_at: sql`now()` })
          .where("id", "=", id)
          .where("user_id", "=", userId)
          .where("status", "in", ["completed", "failed"])
          .where("result_id", "is not", null)
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) {
          throw new AppError("failed_precondition", "This transcription is still running; wait for it to finish before running it again");
        }
        const current = await trx.selectFrom("transcription_jobs").select("engine_model").where("transcription_id", "=", id).orderBy("created_at", "desc").executeTakeFirst();
        await insertJob(trx, {
          id: jobId,
          transcriptionId: id,
          userId,
          settings,
          engineModel: current?.engine_model ?? "",
          maxAttempts: deps.maxAttempts,
          kind: "diarize",
        });
      });
      return { jobId };
    },

    async saveTranscript(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const saved = await saveEdit(db, {
        userId,
        id,
        baseRevision: request.baseRevision,
        edits: request.segments.map((s) => ({ ...(s.id !== undefined ? { id: s.id } : {}), text: s.text, ...(s.speaker !== undefined ? { speaker: s.speaker } : {}) })),
      });
      const withWords = wantsWords(saved.transcription);
      if (!request.changesOnly) return { revision: toRevision(saved.revision), result: toResult(saved, withWords) };
      return {
        revision: toRevision(saved.revision),
        result: toResult({ ...saved, segments: saved.changed }, withWords),
        segmentIds: saved.segments.map((s) => s.id),
      };
    },

    async listRevisions(request) {
      const userId = requireUser(request.userId);
      const row = await findTranscription(db, userId, requireId(request.id));
      if (!row) throw transcriptionNotFound();
      const rows = await listRevisions(db, row.id);
      return { revisions: rows.map(toRevision), currentRevision: row.revision };
    },

    async getRevision(request) {
      const userId = requireUser(request.userId);
      const row = await findTranscription(db, userId, requireId(request.id));
      if (!row) throw transcriptionNotFound();
      const view = await readRevision(db, row, request.revision);
      if (!view) throw transcriptionNotFound();
      return { revision: toRevision(view.revision), result: toResult(view, wantsWords(row)) };
    },

    async restoreRevision(request) {
      const userId = requireUser(request.userId);
      const id = requireId(request.id);
      const view = await restoreRevision(db, { userId, id, revision: request.revision, baseRevision: request.baseRevision });
      const row = (await findTranscription(db, userId, id))!;
      return { revision: toRevision(view.revision), result: toResult(view, wantsWords(row)) };
    },

    async getVocabulary(request) {
      const userId = requireUser(request.userId);
      return { terms: vocabularyToProto(await readVocabulary(db, userId)) };
    },

    async putVocabulary(request) {
      const userId = requireUser(request.userId);
      const terms = validateVocabulary(vocabularyFromProto(request.terms));
      await writeVocabulary(db, userId, terms);
      return { terms: vocabularyToProto(terms) };
    },

    async searchTranscripts(request) {
      const userId = requireUser(request.userId);
      if (request.limit < 0 || request.offset < 0) throw new AppError("invalid_argument", "limit and offset must not be negative");
      const { hits, total, capped } = await searchTranscripts(db, {
        userId,
        query: request.query,
        limit: request.limit === 0 ? 20 : Math.min(request.limit, 100),
        offset: request.offset,
      });
      return {
        totalCount: total,
        totalCapped: capped,
        hits: hits.map((h) => ({
          transcriptionId: h.transcriptionId,
          displayName: h.displayName,
          ...(h.segmentId !== undefined ? { segmentId: h.segmentId } : {}),
          start: h.start,
          end: h.end,
          snippet: h.snippet,
        })),
      };
    },
  };
}

function modelToProto(model: ModelDefinition, { available, reason, preparing, present, download }: Availability) {
  return create(ModelSchema, {
    id: model.id,
    provider: providerToProto(model.provider),
    name: model.name,
    languages: [AUTO_LANGUAGE, ...model.languages],
    translation: model.translation,
    available,
    preparing: preparing ?? false,
    ...(reason ? { reason } : model.note ? { reason: model.note } : {}),
    isDefault: model.isDefault === true,
    present: present ?? false,
    ...(model.weights ? { downloadBytes: BigInt(model.weights.downloadBytes), ramBytes: BigInt(model.weights.ramBytes) } : {}),
    ...(download ? { downloadDoneBytes: BigInt(download.done), ...(download.total ? { downloadTotalBytes: BigInt(download.total) } : {}) } : {}),
  });
}
