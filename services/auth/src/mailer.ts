import { enqueueEvents, newEvent } from "@transcribe/platform";
import { SendEmailSchema, SendMagicLinkSchema } from "@transcribe/proto/events/v1/events";
import type { Kysely } from "kysely";
import type { RenderedMail } from "./domain/mails.js";

/** How the auth service gets mail out: as commands to the notifier (never SMTP itself). */
export interface AuthMailer {
  sendMagicLink(input: { email: string; url: string; token: string }): Promise<void>;
  send(mail: RenderedMail): Promise<void>;
}

/**
 * Writes the command to the auth service's outbox; the relay publishes it on
 * notifier.mail. Committed before the HTTP answer, so a "check your inbox" the user
 * sees always has a mail on its way, even if the notifier is down right now.
 */
export function outboxMailer(db: Kysely<any>): AuthMailer {
  return {
    async sendMagicLink({ email, url, token }) {
      await db.transaction().execute((trx) =>
        enqueueEvents(trx, [newEvent(SendMagicLinkSchema, { email, magicLinkUrl: url, token })]),
      );
    },
    async send(mail) {
      await db.transaction().execute((trx) => enqueueEvents(trx, [newEvent(SendEmailSchema, mail)]));
    },
  };
}
