import { timestampDate } from "@bufbuild/protobuf/wkt";
import { consume, isEvent, type Logger } from "@transcribe/platform";
import { TranscriptionCompletedSchema, TranscriptionOutcome, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import type { BillingDB, Db } from "../db/schema.js";
import { releaseJob, settleJob } from "../domain/usage.js";

/**
 * What billing does with other services' events, exactly once per event (consume()):
 * - TranscriptionCompleted success: the job's usage is settled (its reservation, or a new
 *   ledger row keyed by job id), counted at the event's time; failed: the reservation is
 *   released. The ledger's job-id key also makes a second event for one job change nothing.
 * - UserDeleted: the user's customer row, subscriptions and usage are purged. (Their Stripe
 *   customer is left to Stripe; a live subscription is cancelled by the user in the portal.)
 */
export function billingConsumer(db: Db, logger: Logger) {
  return consume<BillingDB>(db, "billing", async (trx, event) => {
    if (isEvent(event, TranscriptionCompletedSchema)) {
      if (!event.jobId || !event.userId) return;
      if (event.status === TranscriptionOutcome.SUCCESS) {
        const at = event.timestamp ? timestampDate(event.timestamp) : new Date();
        await settleJob(trx, { jobId: event.jobId, userId: event.userId, audioSeconds: event.audioDuration, at });
      } else {
        await releaseJob(trx, event.jobId);
      }
      return;
    }
    if (isEvent(event, UserDeletedSchema)) {
      await trx.deleteFrom("billing_usage").where("user_id", "=", event.userId).execute();
      await trx.deleteFrom("billing_subscriptions").where("user_id", "=", event.userId).execute();
      await trx.deleteFrom("billing_customers").where("user_id", "=", event.userId).execute();
      logger.info({ userId: event.userId }, "user purged");
    }
  });
}
