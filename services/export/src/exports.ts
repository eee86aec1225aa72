import { createHash, randomUUID } from "node:crypto";
import { AppError, type Logger, type ObjectStorage } from "@transcribe/platform";
import type { Kysely, Transaction } from "kysely";
import type { ExportDatabase } from "./db/schema.js";
import {
  exportFileName,
  exportFormatsText,
  formatInfo,
  isExportFormat,
  renderExport,
  type ExportFormat,
  type FontSet,
  type Transcript,
} from "./domain/index.js";
import { transcriptionNotFound } from "./transcripts.js";

export interface CreateExportInput {
  userId: string;
  transcriptionId: string;
  /** Anything but a format of the registry (domain/formats.ts) is refused. */
  format: string;
  includeTimestamps: boolean;
  /** A revision of the transcript; undefined is the current one. */
  revision?: number | undefined;
}

export interface CreatedExport {
  id: string;
  downloadUrl: string;
  format: ExportFormat;
  expiresAt: Date;
  fileName: string;
  size: number;
}

export interface ExportManagerOptions {
  db: Kysely<ExportDatabase>;
  storage: ObjectStorage;
  fonts: FontSet;
  logger: Logger;
  /** Reads the user's transcript, refusing what cannot be exported (see transcripts.ts). */
  loadTranscript(userId: string, transcriptionId: string, revision?: number): Promise<Transcript>;
  urlTtlSeconds: number;
  now?: () => Date;
}

/** Ids that are valid key segments are used as they are; anything else by its hash. */
export function keySegment(id: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : `h.${createHash("sha256").update(id).digest("hex").slice(0, 40)}`;
}

/** Every export of a user lives under the user's prefix, and of a transcript under its own. */
export function exportKey(userId: string, transcriptionId: string, exportId: string, format: ExportFormat): string {
  return `${keySegment(userId)}/${keySegment(transcriptionId)}/${exportId}.${formatInfo[format].extension}`;
}

const SWEEP_BATCH = 200;
/** Rows outlive their URL a little, so the file is never removed while a valid link points to it. */
const EXPIRY_GRACE_SECONDS = 60;

/**
 * Creating exports and removing them: on request, after expiry, and when the transcript
 * or the user is deleted.
 */
export class ExportManager {
  readonly #options: ExportManagerOptions;
  readonly #now: () => Date;

  constructor(options: ExportManagerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Validates, reads the transcript (refusing foreign, missing and unfinished ones), renders,
   * records the export, stores the file and returns a signed download URL. Nothing is
   * rendered or stored when the request is refused.
   */
  async create(input: CreateExportInput): Promise<CreatedExport> {
    const { db, storage, logger } = this.#options;
    if (!input.userId) throw new AppError("invalid_argument", "user_id is required");
    if (!input.transcriptionId) throw new AppError("invalid_argument", "transcription_id is required");
    if (!isExportFormat(input.format)) {
      throw new AppError("invalid_argument", `Export format must be one of ${exportFormatsText()}`, {
        format: input.format,
      });
    }
    const format = input.format;
    if (input.revision !== undefined && (!Number.isInteger(input.revision) || input.revision < 1)) {
      throw new AppError("invalid_argument", "revision must be a positive whole number", { field: "revision" });
    }
    const transcript = await this.#options.loadTranscript(input.userId, input.transcriptionId, input.revision);

    const started = performance.now();
    const rendered = await renderExport(transcript, format, { includeTimestamps: input.includeTimestamps }, { fonts: this.#options.fonts });
    const renderMs = Math.round(performance.now() - started);
    if (rendered.missingGlyphs.length > 0) {
      logger.warn({ transcriptionId: input.transcriptionId, characters: rendered.missingGlyphs.slice(0, 50).join("") }, "export has characters no configured font can show");
    }

    const id = randomUUID();
    const key = exportKey(input.userId, input.transcriptionId, id, format);
    const fileName = exportFileName(transcript.title, format);
    const now = this.#now();
    await db
      .insertInto("exports")
      .values({
        id,
        user_id: input.userId,
        transcription_id: input.transcriptionId,
        format,
        object_key: key,
        file_name: fileName,
        content_type: rendered.contentType,
        size_bytes: rendered.data.length,
        expires_at: new Date(now.getTime() + (this.#options.urlTtlSeconds + EXPIRY_GRACE_SECONDS) * 1000),
        revision: transcript.revision ?? null,
        pinned: input.revision !== undefined,
      })
      .execute();
    try {
      await storage.putObject(key, rendered.data, { contentType: rendered.contentType, contentLength: rendered.data.length });
    } catch (error) {
      await db.deleteFrom("exports").where("id", "=", id).execute().catch(() => undefined);
      throw error;
    }
    // The transcript (or its user) may have been deleted while we rendered, and the
    // cleanup may have run between our insert and our write. Locking the row waits for
    // a cleanup still in progress; if the row is gone, so must the file be.
    const stillThere = await db.transaction().execute((trx) =>
      trx.selectFrom("exports").select("id").where("id", "=", id).forUpdate().executeTakeFirst(),
    );
    if (!stillThere) {
      await storage.deleteObject(key);
      throw transcriptionNotFound();
    }
    const url = await storage.presignGet(key, { expiresInSeconds: this.#options.urlTtlSeconds, fileName });
    logger.info(
      { exportId: id, transcriptionId: input.transcriptionId, format, bytes: rendered.data.length, renderMs },
      "export created",
    );
    return { id, downloadUrl: url.url, format, expiresAt: url.expiresAt, fileName, size: rendered.data.length };
  }

  /**
   * Removes a transcript's exports (TranscriptDeleted) or all of a user's (UserDeleted):
   * rows in the caller's transaction, files by row and then by key prefix, which also
   * catches a file whose row an interrupted request never got to write.
   */
  async removeFor(trx: Transaction<ExportDatabase>, target: { userId: string; transcriptionId?: string }): Promise<number> {
    const { storage } = this.#options;
    let query = trx.deleteFrom("exports").returning("object_key");
    if (target.transcriptionId) query = query.where("transcription_id", "=", target.transcriptionId);
    if (target.userId) query = query.where("user_id", "=", target.userId);
    if (!target.transcriptionId && !target.userId) return 0;
    const rows = await query.execute();
    for (const row of rows) await storage.deleteObject(row.object_key);
    if (target.userId) {
      const prefix = target.transcriptionId
        ? `${keySegment(target.userId)}/${keySegment(target.transcriptionId)}/`
        : `${keySegment(target.userId)}/`;
      await storage.deleteObjects(prefix);
    }
    return rows.length;
  }

  /**
   * TranscriptEdited: files rendered from "the current revision" before this edit are
   * stale, so they go (rows and files); files of a revision asked for by number stay.
   */
  async removeStale(trx: Transaction<ExportDatabase>, target: { userId: string; transcriptionId: string; revision: number }): Promise<number> {
    const rows = await trx
      .deleteFrom("exports")
      .where("transcription_id", "=", target.transcriptionId)
      .where("user_id", "=", target.userId)
      .where("pinned", "=", false)
      .where((eb) => eb.or([eb("revision", "is", null), eb("revision", "<>", target.revision)]))
      .returning("object_key")
      .execute();
    for (const row of rows) await this.#options.storage.deleteObject(row.object_key);
    return rows.length;
  }

  /** Deletes exports whose URL has expired, a batch per transaction; safe with several replicas. */
  async sweepExpired(): Promise<number> {
    const { db, storage } = this.#options;
    let removed = 0;
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        const rows = await trx
          .selectFrom("exports")
          .select(["id", "object_key"])
          .where("expires_at", "<=", this.#now())
          .orderBy("expires_at")
          .limit(SWEEP_BATCH)
          .forUpdate()
          .skipLocked()
          .execute();
        for (const row of rows) await storage.deleteObject(row.object_key);
        if (rows.length > 0) await trx.deleteFrom("exports").where("id", "in", rows.map((row) => row.id)).execute();
        return rows.length;
      });
      removed += batch;
      if (batch < SWEEP_BATCH) return removed;
    }
  }
}
