import { randomUUID } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AppError, enqueueEvents, newEvent, type Logger } from "@transcribe/platform";
import { StorageAction, StorageNotificationSchema } from "@transcribe/proto/events/v1/events";
import { sql, type Kysely, type Transaction } from "kysely";
import type { MediaConfig } from "./config.js";
import { findFile, findUserFile, insertFile, isUuid, listUserFiles, markReceived } from "./db/files.js";
import type { FileRow, MediaDatabase } from "./db/schema.js";
import { checkDeclaredUpload, keys, messages, type DeclaredUpload } from "./domain/rules.js";
import { addressPolicy, checkImportUrl, type AddressPolicy } from "./processing/import-url.js";
import type { MediaStorage } from "./storage/build.js";

export interface MediaFilesOptions {
  db: Kysely<MediaDatabase>;
  storage: MediaStorage;
  config: MediaConfig;
  logger: Logger;
  /** Tells the processing worker there is work (it also polls). */
  wake?: () => void;
}

const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

/**
 * The media service's use cases. Every user-scoped call sees only that user's records:
 * anyone else's file is "File not found", exactly like a missing one.
 */
export class MediaFiles {
  readonly db: Kysely<MediaDatabase>;
  readonly storage: MediaStorage;
  readonly config: MediaConfig;
  readonly logger: Logger;
  readonly addressPolicy: AddressPolicy;
  wake: () => void;

  constructor(options: MediaFilesOptions) {
    this.db = options.db;
    this.storage = options.storage;
    this.config = options.config;
    this.logger = options.logger;
    this.addressPolicy = addressPolicy(options.config.MEDIA_IMPORT_ALLOW_CIDRS);
    this.wake = options.wake ?? (() => {});
  }

  get limits() {
    return { maxFileBytes: this.config.MEDIA_MAX_FILE_BYTES };
  }

  async createUpload(userId: string, declared: DeclaredUpload) {
    requireUser(userId);
    const checked = checkDeclaredUpload(declared, this.limits);
    const fileId = randomUUID();
    const rawKey = keys.raw(fileId, checked.contentType);
    // The content type the client declared is the one the PUT must carry: the signed URL
    // binds it and the exact length, so the store refuses anything else.
    const presigned = await this.storage.storage.presignPut(rawKey, {
      expiresInSeconds: this.config.MEDIA_UPLOAD_URL_TTL_SECONDS,
      contentType: checked.contentType,
      contentLength: checked.fileSize,
    });
    await insertFile(this.db, {
      id: fileId,
      userId,
      fileName: checked.fileName,
      fileSize: checked.fileSize,
      contentType: checked.contentType,
      duration: checked.duration,
      rawKey,
      status: "uploading",
      uploadExpiresAt: presigned.expiresAt,
    });
    return { fileId, uploadUrl: presigned.url, expiresAt: presigned.expiresAt };
  }

  /**
   * The client says it is done; the store decides. Moves the record on only when the
   * object is really there (the storage notification normally got there first).
   */
  async completeUpload(userId: string, fileId: string): Promise<FileRow> {
    const row = await this.getFile(userId, fileId);
    if (row.status !== "uploading") return row;
    const head = await this.storage.storage.headObject(row.raw_key);
    if (!head) throw new AppError("failed_precondition", "The file has not been uploaded yet");
    await this.objectCreated(row.raw_key);
    return this.getFile(userId, fileId);
  }

  async getFile(userId: string, fileId: string): Promise<FileRow> {
    requireUser(userId);
    const row = await findUserFile(this.db, userId, fileId);
    if (!row) throw new AppError("not_found", messages.fileNotFound);
    return row;
  }

  async listFiles(userId: string, limit: number, offset: number) {
    requireUser(userId);
    if (limit < 0 || offset < 0 || !Number.isInteger(limit) || !Number.isInteger(offset)) {
      throw new AppError("invalid_argument", "limit and offset must be whole numbers, 0 or more");
    }
    return listUserFiles(this.db, userId, limit === 0 ? DEFAULT_PAGE : Math.min(limit, MAX_PAGE), offset);
  }

  async deleteFile(userId: string, fileId: string): Promise<void> {
    const row = await this.getFile(userId, fileId);
    await this.purge([row]);
  }

  async importFromUrl(userId: string, url: string): Promise<string> {
    requireUser(userId);
    // Checked now so the person gets the refusal at once; checked again on every
    // connection and redirect when the fetch runs.
    const checked = await checkImportUrl(url, this.addressPolicy);
    const fileId = randomUUID();
    const name = decodeName(checked.pathname.split("/").filter(Boolean).pop()) || "download";
    await insertFile(this.db, {
      id: fileId,
      userId,
      fileName: name.slice(0, 255),
      // Unknown until fetched; the worker records the real values.
      fileSize: 0,
      contentType: "application/octet-stream",
      duration: 0,
      // Replaced once the type is known; unique meanwhile.
      rawKey: `media/${fileId}/raw.download`,
      status: "processing",
      sourceUrl: checked.href,
    });
    this.wake();
    return fileId;
  }

  async getAudioUrl(userId: string, fileId: string) {
    const row = await this.getFile(userId, fileId);
    if (row.status === "failed") throw new AppError("failed_precondition", row.error ?? messages.processingFailed);
    if (row.status === "uploading" || (row.status === "processing" && row.source_url)) {
      throw new AppError("failed_precondition", "The file has not been uploaded yet");
    }
    const key = row.processed_key ?? row.raw_key;
    return this.storage.storage.presignGet(key, { expiresInSeconds: this.config.MEDIA_AUDIO_URL_TTL_SECONDS });
  }

  /**
   * An object appeared in storage (the local PUT handler, or a bucket notification).
   * When it is the raw object of an upload, the upload is received: PROCESSING.
   */
  async objectCreated(key: string, trx?: Transaction<MediaDatabase>): Promise<"received" | "ignored" | "orphan"> {
    const run = async (t: Transaction<MediaDatabase>) => {
      if (await markReceived(t, key)) return "received" as const;
      const fileId = keys.fileIdOf(key);
      if (fileId && !(await findFile(t, fileId))) return "orphan" as const;
      return "ignored" as const;
    };
    const outcome = trx ? await run(trx) : await this.db.transaction().execute(run);
    if (outcome === "received") this.wake();
    if (outcome === "orphan") {
      // An upload that finished after its record was deleted (or swept): nothing owns it.
      this.logger.info({ key }, "deleting an object no file record owns");
      await this.storage.storage.deleteObject(key);
    }
    return outcome;
  }

  /** Local mode only: the PUT handler's notification, in the transaction that records it. */
  async localObjectPut(key: string, size: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await enqueueEvents(trx, [this.notification(StorageAction.PUT_OBJECT, key, size)]);
      await this.objectCreated(key, trx);
    });
    // Again after commit: the wake inside the transaction can come before the row is visible.
    this.wake();
  }

  /**
   * Deletes records and every object under their prefixes. The rows go first (with the
   * DeleteObject notifications, in local mode), then the objects; a crash in between
   * leaves objects no record owns, which their notification or a retry removes.
   */
  async purge(rows: readonly FileRow[], trx?: Transaction<MediaDatabase>): Promise<void> {
    if (rows.length === 0) return;
    const removeRows = async (t: Transaction<MediaDatabase>) => {
      await t.deleteFrom("files").where("id", "in", rows.map((r) => r.id)).execute();
      await enqueueEvents(t, rows.flatMap((row) => this.deletionNotifications(row)));
    };
    if (trx) await removeRows(trx);
    else await this.db.transaction().execute(removeRows);
    for (const row of rows) await this.deleteObjectsOf(row.id);
  }

  async deleteObjectsOf(fileId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.storage.storage.deleteObjects(keys.prefix(fileId));
        return;
      } catch (error) {
        if (attempt >= 3) {
          this.logger.error({ err: error, fileId }, "could not delete a file's objects");
          throw error;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  }

  /** The DeleteObject notifications of a record's objects; the bucket sends its own in S3 mode. */
  deletionNotifications(row: Pick<FileRow, "raw_key" | "processed_key" | "chunks" | "status" | "source_url">) {
    if (this.storage.kind !== "local") return [];
    const existing = [row.status === "uploading" || (row.source_url && row.status === "processing") ? undefined : row.raw_key, row.processed_key, ...row.chunks];
    return existing.filter((k): k is string => Boolean(k)).map((k) => this.notification(StorageAction.DELETE_OBJECT, k));
  }

  notification(action: StorageAction, key: string, size?: number) {
    return newEvent(StorageNotificationSchema, {
      action,
      bucket: this.storage.bucket,
      key,
      ...(size === undefined ? {} : { size: BigInt(size) }),
      eventTime: timestampFromDate(new Date()),
    });
  }

  /** Every record of a user, for UserDeleted. */
  async userFiles(trx: Transaction<MediaDatabase>, userId: string): Promise<FileRow[]> {
    return trx.selectFrom("files").selectAll().where("user_id", "=", userId).forUpdate().execute();
  }

  /** Records holding any of these keys, of this user. */
  async filesWithKeys(trx: Transaction<MediaDatabase>, userId: string, objectKeys: readonly string[]): Promise<FileRow[]> {
    const ids = [...new Set(objectKeys.map((k) => keys.fileIdOf(k)).filter((id): id is string => Boolean(id && isUuid(id))))];
    if (ids.length === 0) return [];
    return trx
      .selectFrom("files")
      .selectAll()
      .where("id", "in", ids)
      .where("user_id", "=", userId)
      .where((w) => w.or([w("raw_key", "in", objectKeys), w("processed_key", "in", objectKeys)]))
      .forUpdate()
      .execute();
  }

  async touch(fileId: string): Promise<void> {
    await this.db.updateTable("files").set({ updated_at: sql`now()` }).where("id", "=", fileId).execute();
  }
}

function requireUser(userId: string): void {
  if (!userId) throw new AppError("invalid_argument", messages.userRequired);
}

function decodeName(segment: string | undefined): string {
  if (!segment) return "";
  try {
    return decodeURIComponent(segment).replace(/[\u0000-\u001f\u007f/\\]/g, "_").trim();
  } catch {
    return segment;
  }
}
