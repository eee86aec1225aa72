import { consume, isEvent, type EventHandler } from "@transcribe/platform";
import { TranscriptDeletedSchema, TranscriptEditedSchema, TranscriptSpeakerRenamedSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import type { Kysely } from "kysely";
import type { ExportDatabase } from "../db/schema.js";
import type { ExportManager } from "../exports.js";

/** The topics the export service consumes (they are listed for it in eventTopology). */
export const cleanupTopics = ["transcription.transcripts", "auth.users"] as const;

/**
 * A deleted transcript or user takes its exports with it; an edited transcript takes the
 * files rendered from its previous current revision (TranscriptEdited). Runs once per event (consume()):
 * rows go in the consumer's transaction; files are deleted before it commits, and
 * deleting a missing file succeeds, so a redelivery after a crash simply repeats it.
 */
export function cleanupHandler(db: Kysely<ExportDatabase>, manager: ExportManager): EventHandler {
  return consume(db, "export", async (trx, event) => {
    if (isEvent(event, TranscriptDeletedSchema) || isEvent(event, TranscriptSpeakerRenamedSchema)) {
      // Renamed or re-identified speakers: files rendered with the old names are stale.
      await manager.removeFor(trx, { userId: event.userId, transcriptionId: event.transcriptId });
    } else if (isEvent(event, TranscriptEditedSchema)) {
      await manager.removeStale(trx, { userId: event.userId, transcriptionId: event.transcriptId, revision: event.revision });
    } else if (isEvent(event, UserDeletedSchema)) {
      await manager.removeFor(trx, { userId: event.userId });
    }
  });
}
