import { consume, isEvent, type Logger } from "@transcribe/platform";
import { FileUploadedSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import { sql, type Kysely } from "kysely";
import type { TranscriptionDB } from "../db/schema.js";
import { forgetUser } from "../voices.js";

/**
 * What the transcription service does with other services' events (exactly once per
 * event, see consume()):
 * - UserDeleted: every transcription, job, result, stored chunk and the vocabulary of the user is
 *   purged. A worker running one of their jobs finds its lease gone at its next
 *   heartbeat, kills its engine and drops the work. Their voice library (voices, the
 *   speakers' kept embeddings, the setting) goes too.
 * - FileUploaded: jobs waiting for that file are woken instead of waiting for their
 *   next poll.
 */
export function transcriptionConsumer(db: Kysely<TranscriptionDB>, logger: Logger) {
  return consume<TranscriptionDB>(db, "transcription", async (trx, event) => {
    if (isEvent(event, UserDeletedSchema)) {
      const purged = await trx.deleteFrom("transcriptions").where("user_id", "=", event.userId).executeTakeFirst();
      // Jobs cascade with their transcription; this also catches any orphan.
      await trx.deleteFrom("transcription_jobs").where("user_id", "=", event.userId).execute();
      // The voice library goes with the account (decision 0031).
      await forgetUser(trx, event.userId);
      await trx.deleteFrom("voice_settings").where("user_id", "=", event.userId).execute();
      await trx.deleteFrom("transcription_vocabularies").where("user_id", "=", event.userId).execute();
      logger.info({ userId: event.userId, transcriptions: Number(purged.numDeletedRows) }, "user purged");
      return;
    }
    if (isEvent(event, FileUploadedSchema)) {
      await sql`
        update transcription_jobs j set run_after = now()
        from transcriptions t
        where t.id = j.transcription_id and t.file_id = ${event.fileId}
          and j.status in ('pending', 'processing') and j.run_after > now()`.execute(trx);
    }
  });
}
