import { randomUUID } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { consume, type EventHandler, isEvent } from "@transcribe/platform";
import { TranscriptionCompletedSchema, TranscriptionFailedSchema, TranscriptionOutcome } from "@transcribe/proto/events/v1/events";
import { type Kysely, sql } from "kysely";
import type { WebhooksDatabase } from "../db/migrations.js";
import type { WebhookEvent } from "../domain/rules.js";

/**
 * transcription.jobs → one pending delivery per subscribed endpoint of the job's user.
 * The insert shares consume()'s transaction (once per event id), and (endpoint, type:job)
 * is unique, so however often an event arrives each endpoint gets one delivery per job.
 * transcription.completed comes from a successful TranscriptionCompleted; a failure is
 * announced once, from TranscriptionFailed.
 */
export function transcriptionEventsConsumer(options: { db: Kysely<WebhooksDatabase>; retryWindowSeconds: number; wake: () => void }): EventHandler {
  const handler = consume(options.db, "webhooks", async (trx, event, envelope) => {
    let type: WebhookEvent;
    let data: Record<string, unknown>;
    let userId: string;
    let jobId: string;
    let transcriptionId: string;
    if (isEvent(event, TranscriptionCompletedSchema) && event.status === TranscriptionOutcome.SUCCESS) {
      type = "transcription.completed";
      ({ userId, jobId } = event);
      transcriptionId = event.transcriptionId ?? "";
      data = { transcription_id: transcriptionId, job_id: jobId, status: "completed", audio_duration: event.audioDuration };
    } else if (isEvent(event, TranscriptionFailedSchema)) {
      type = "transcription.failed";
      ({ userId, jobId } = event);
      transcriptionId = event.transcriptionId ?? "";
      data = { transcription_id: transcriptionId, job_id: jobId, status: "failed", error: event.error };
    } else {
      return;
    }
    const endpoints = await trx
      .selectFrom("webhook_endpoints")
      .select(["id"])
      .where("user_id", "=", userId)
      .where(sql<boolean>`${type} = any(events)`)
      .execute();
    if (endpoints.length === 0) return;
    const occurred = event.timestamp ? timestampDate(event.timestamp) : new Date();
    const payload = { type, timestamp: occurred.toISOString(), data };
    await trx
      .insertInto("webhook_deliveries")
      .values(
        endpoints.map((endpoint) => ({
          id: randomUUID(),
          endpoint_id: endpoint.id,
          user_id: userId,
          event_type: type,
          source_key: `${type}:${jobId || envelope.id}`,
          transcription_id: transcriptionId,
          payload: JSON.stringify(payload),
          status: "pending" as const,
          next_attempt_at: sql<Date>`now()`,
          give_up_at: sql<Date>`now() + make_interval(secs => ${options.retryWindowSeconds})`,
        })),
      )
      .onConflict((oc) => oc.columns(["endpoint_id", "source_key"]).doNothing())
      .execute();
  });
  return async (envelope) => {
    await handler(envelope);
    options.wake();
  };
}
