import { timingSafeEqual } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enqueueEvents, newEvent } from "@transcribe/platform";
import { StorageAction, StorageNotificationSchema } from "@transcribe/proto/events/v1/events";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { MediaFiles } from "../files.js";

export const NOTIFICATIONS_PATH = "/storage/notifications";

/** The S3 event notification format (AWS, MinIO's webhook target), as much as we read. */
const s3EventSchema = z.object({
  Records: z
    .array(
      z.object({
        eventName: z.string(),
        eventTime: z.string().optional(),
        s3: z.object({
          bucket: z.object({ name: z.string() }),
          object: z.object({ key: z.string(), size: z.number().optional(), eTag: z.string().optional() }),
        }),
      }),
    )
    .default([]),
});

/** S3 event names to the spec's storage actions (docs/requirements.md "Entities"); others are not ours to relay. */
export function actionOf(eventName: string): StorageAction | undefined {
  const name = eventName.replace(/^s3:/, "");
  if (name.startsWith("ObjectCreated:CompleteMultipartUpload")) return StorageAction.COMPLETE_MULTIPART_UPLOAD;
  if (name.startsWith("ObjectCreated:Copy")) return StorageAction.COPY_OBJECT;
  if (name.startsWith("ObjectCreated:")) return StorageAction.PUT_OBJECT;
  if (name.startsWith("LifecycleExpiration:") || name.startsWith("LifecycleDelMarkerExpiration:")) return StorageAction.LIFECYCLE_DELETION;
  if (name.startsWith("ObjectRemoved:")) return StorageAction.DELETE_OBJECT;
  return undefined;
}

/**
 * Cluster mode: the bucket's webhook notifications (MinIO's notify_webhook, or a bridge
 * from SQS/SNS) arrive here and become StorageNotification events in the outbox, in the
 * same transaction that accepts them; media's own consumer then reacts. Off unless
 * STORAGE_NOTIFICATION_TOKEN is set; the caller must send it as a bearer token.
 */
export function notificationRoutes(app: FastifyInstance, files: MediaFiles, token: string): void {
  const expected = Buffer.from(`Bearer ${token}`);
  app.post(NOTIFICATIONS_PATH, { bodyLimit: 1024 * 1024 }, async (request, reply) => {
    const given = Buffer.from(String(request.headers.authorization ?? ""));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply.code(401).send({ error: { code: "unauthenticated", message: "Missing or wrong notification token" } });
    }
    const parsed = s3EventSchema.safeParse(request.body ?? {});
    if (!parsed.success) {
      return reply.code(400).send({ error: { code: "invalid_argument", message: "Not an S3 event notification" } });
    }
    const events = parsed.data.Records.flatMap((record) => {
      const action = actionOf(record.eventName);
      if (action === undefined) return [];
      const eventTime = record.eventTime ? new Date(record.eventTime) : new Date();
      return [
        newEvent(StorageNotificationSchema, {
          action,
          bucket: record.s3.bucket.name,
          // S3 form-encodes keys in notifications ("a%2Fb+c" is "a/b c").
          key: decodeURIComponent(record.s3.object.key.replace(/\+/g, " ")),
          ...(record.s3.object.size === undefined ? {} : { size: BigInt(record.s3.object.size) }),
          ...(record.s3.object.eTag ? { tag: record.s3.object.eTag } : {}),
          eventTime: timestampFromDate(Number.isNaN(eventTime.getTime()) ? new Date() : eventTime),
        }),
      ];
    });
    if (events.length > 0) await files.db.transaction().execute((trx) => enqueueEvents(trx, events).then(() => undefined));
    return reply.code(204).send();
  });
}
