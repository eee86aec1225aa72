import { sql, type Kysely, type Transaction } from "kysely";
import type { FileRow, MediaDatabase } from "./schema.js";

type Db = Kysely<MediaDatabase> | Transaction<MediaDatabase>;

export interface NewFile {
  id: string;
  userId: string;
  fileName: string;
  fileSize: number;
  contentType: string;
  duration: number;
  rawKey: string;
  status: "uploading" | "processing";
  sourceUrl?: string;
  uploadExpiresAt?: Date;
}

export async function insertFile(db: Db, file: NewFile): Promise<FileRow> {
  return db
    .insertInto("files")
    .values({
      id: file.id,
      user_id: file.userId,
      file_name: file.fileName,
      file_size: file.fileSize,
      content_type: file.contentType,
      duration: file.duration,
      raw_key: file.rawKey,
      processed_key: null,
      status: file.status,
      error: null,
      source_url: file.sourceUrl ?? null,
      upload_expires_at: file.uploadExpiresAt ?? null,
      lease_until: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One of the user's files; undefined when missing or someone else's. */
export async function findUserFile(db: Db, userId: string, fileId: string): Promise<FileRow | undefined> {
  if (!isUuid(fileId)) return undefined;
  return db.selectFrom("files").selectAll().where("id", "=", fileId).where("user_id", "=", userId).executeTakeFirst();
}

export async function findFile(db: Db, fileId: string, options: { forUpdate?: boolean } = {}): Promise<FileRow | undefined> {
  if (!isUuid(fileId)) return undefined;
  let query = db.selectFrom("files").selectAll().where("id", "=", fileId);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function listUserFiles(db: Db, userId: string, limit: number, offset: number) {
  const [files, total] = await Promise.all([
    db
      .selectFrom("files")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .offset(offset)
      .execute(),
    db.selectFrom("files").select(sql<number>`count(*)::int`.as("n")).where("user_id", "=", userId).executeTakeFirstOrThrow(),
  ]);
  return { files, totalCount: total.n };
}

/**
 * The storage said the raw object of an upload exists: UPLOADING → PROCESSING, once.
 * Returns the record when this call moved it, undefined otherwise (not ours, already
 * moved, or a key that is not a raw key).
 */
export async function markReceived(trx: Transaction<MediaDatabase>, rawKey: string): Promise<FileRow | undefined> {
  return trx
    .updateTable("files")
    .set({ status: "processing", attempts: 0, lease_until: null, updated_at: sql`now()` })
    .where("raw_key", "=", rawKey)
    .where("status", "=", "uploading")
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes one PROCESSING record whose lease is free (never taken, or its worker died) and
 * leases it; `for update skip locked` lets several workers and replicas share the work.
 */
export async function claimForProcessing(db: Kysely<MediaDatabase>, leaseMs: number): Promise<FileRow | undefined> {
  return db
    .updateTable("files")
    .set({
      lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
      attempts: sql`attempts + 1`,
      updated_at: sql`now()`,
    })
    .where(
      "id",
      "=",
      (eb) =>
        eb
          .selectFrom("files")
          .select("id")
          .where("status", "=", "processing")
          .where((w) => w.or([w("lease_until", "is", null), w("lease_until", "<", sql<Date>`now()`)]))
          .orderBy("updated_at")
          .limit(1)
          .forUpdate()
          .skipLocked() as never,
    )
    .returningAll()
    .executeTakeFirst();
}

export async function extendLease(db: Kysely<MediaDatabase>, fileId: string, leaseMs: number): Promise<void> {
  await db
    .updateTable("files")
    .set({ lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where("id", "=", fileId)
    .where("status", "=", "processing")
    .execute();
}

/** Lets another attempt take the record after `delayMs` (a transient fault). */
export async function releaseLease(db: Kysely<MediaDatabase>, fileId: string, delayMs: number): Promise<void> {
  await db
    .updateTable("files")
    .set({ lease_until: sql`now() + make_interval(secs => ${delayMs / 1000})` })
    .where("id", "=", fileId)
    .where("status", "=", "processing")
    .execute();
}

/** Uploads whose link expired `graceMs` ago without the object ever arriving. */
export async function findAbandonedUploads(db: Kysely<MediaDatabase>, graceMs: number, limit = 100): Promise<FileRow[]> {
  return db
    .selectFrom("files")
    .selectAll()
    .where("status", "=", "uploading")
    .where("upload_expires_at", "<", sql<Date>`now() - make_interval(secs => ${graceMs / 1000})`)
    .orderBy("upload_expires_at")
    .limit(limit)
    .execute();
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
