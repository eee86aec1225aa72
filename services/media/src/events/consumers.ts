import { consume, isEvent, type Subscription } from "@transcribe/platform";
import { StorageAction, StorageNotificationSchema, TranscriptDeletedSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import type { Kysely } from "kysely";
import type { MediaDatabase } from "../db/schema.js";
import type { MediaFiles } from "../files.js";

export const CONSUMER = "media";

const created = new Set([StorageAction.PUT_OBJECT, StorageAction.COPY_OBJECT, StorageAction.COMPLETE_MULTIPART_UPLOAD]);

/**
 * What media reacts to (see eventTopology): storage notifications (an upload landed),
 * a transcript deleted (its audio goes with it) and a user deleted (everything of theirs
 * goes). Each runs once per event through consume().
 */
export function mediaSubscriptions(files: MediaFiles): Subscription[] {
  const db = files.db as Kysely<MediaDatabase>;
  // The handlers may wake the worker before their transaction commits; wake it again after.
  const thenWake = (subscription: Subscription): Subscription => ({
    topics: subscription.topics,
    handler: async (envelope) => {
      await subscription.handler(envelope);
      files.wake();
    },
  });
  const subscriptions: Subscription[] = [
    {
      topics: ["media.objects"],
      handler: consume(db, CONSUMER, async (trx, event) => {
        if (!isEvent(event, StorageNotificationSchema)) return;
        // Only our own bucket's objects: a shared notification stream may carry others.
        if (event.bucket !== files.storage.bucket) return;
        if (created.has(event.action)) await files.objectCreated(event.key, trx);
      }),
    },
    {
      topics: ["transcription.transcripts"],
      handler: consume(db, CONSUMER, async (trx, event) => {
        if (!isEvent(event, TranscriptDeletedSchema)) return;
        const objectKeys = [event.rawKey, event.processedKey].filter((k) => k.length > 0);
        // The event names the keys; only that user's records holding them are touched.
        const rows = await files.filesWithKeys(trx, event.userId, objectKeys);
        await files.purge(rows, trx);
      }),
    },
    {
      topics: ["auth.users"],
      handler: consume(db, CONSUMER, async (trx, event) => {
        if (!isEvent(event, UserDeletedSchema) || !event.userId) return;
        await files.purge(await files.userFiles(trx, event.userId), trx);
      }),
    },
  ];
  return subscriptions.map(thenWake);
}
