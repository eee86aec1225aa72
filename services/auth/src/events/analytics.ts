import { consume, type EventHandler, isEvent, type Logger } from "@transcribe/platform";
import { TrackUserSignupSchema } from "@transcribe/proto/events/v1/events";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Kysely } from "kysely";
import { PostHog } from "posthog-node";

/** Server-side product analytics. Only a sign-up is reported; nothing leaves without a key. */
export interface Analytics {
  signup(input: { userId: string; eventId: string; at: Date }): Promise<void>;
  shutdown(): Promise<void>;
}

export const SIGNUP_EVENT = "user_signed_up";

export function createAnalytics(options: { key: string | undefined; host: string; logger: Logger }): Analytics {
  if (!options.key) {
    return { signup: async () => {}, shutdown: async () => {} };
  }
  const client = new PostHog(options.key, { host: options.host, flushAt: 1, flushInterval: 0, fetchRetryCount: 0 });
  return {
    async signup({ userId, eventId, at }) {
      // captureImmediate resolves even when PostHog could not be reached; the client only
      // says so through its "error" event. Turning that into a rejection makes the bus
      // retry, so a PostHog outage delays the event instead of losing it. (Deliveries of
      // one consumer run one at a time, so the listener sees only this capture.)
      let failure: unknown;
      const off = client.on("error", (error: unknown) => {
        failure ??= error;
      });
      try {
        // uuid = the event id: a redelivered event is the same PostHog event, not a second sign-up.
        await client.captureImmediate({ distinctId: userId, event: SIGNUP_EVENT, uuid: eventId, timestamp: at });
      } finally {
        off();
      }
      if (failure) throw failure instanceof Error ? failure : new Error(`PostHog: ${String(failure)}`);
    },
    shutdown: () => client.shutdown(),
  };
}

/** The auth service's consumer of auth.users: TrackUserSignup → analytics; other events are not its business. */
export function analyticsConsumer(db: Kysely<any>, analytics: Analytics): EventHandler {
  return consume(db, "auth", async (_trx, event) => {
    if (!isEvent(event, TrackUserSignupSchema)) return;
    await analytics.signup({
      userId: event.userId,
      eventId: event.id,
      at: event.timestamp ? timestampDate(event.timestamp) : new Date(),
    });
  });
}
