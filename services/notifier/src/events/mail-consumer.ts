import { consume, type EventHandler, isEvent, type Logger } from "@transcribe/platform";
import { SendEmailSchema, SendMagicLinkSchema } from "@transcribe/proto/events/v1/events";
import type { Kysely, Transaction } from "kysely";
import type { NotifierDatabase } from "../db/migrations.js";
import { magicLinkMail, type OutgoingMail } from "../domain/mail.js";
import type { MailTransport } from "../transport.js";

/**
 * notifier.mail: each command becomes one mail, sent and logged once per command id.
 * The send happens inside consume()'s transaction: a failed send rolls the log row and
 * the processed-event mark back, and the bus retries. A crash after the SMTP server took
 * the mail but before the commit sends it again (at least once); the Message-ID is the
 * command id, so the copies are recognisably one mail.
 */
export function mailConsumer(options: {
  db: Kysely<NotifierDatabase>;
  transport: MailTransport;
  logger: Logger;
  /** Log the sign-in link too (development: follow it from the terminal). */
  logMagicLinks: boolean;
}): EventHandler {
  return consume(options.db, "notifier", async (trx: Transaction<NotifierDatabase>, event, envelope) => {
    let mail: OutgoingMail;
    if (isEvent(event, SendMagicLinkSchema)) {
      mail = magicLinkMail(event.email, event.magicLinkUrl);
      if (options.logMagicLinks) options.logger.info({ to: event.email, url: event.magicLinkUrl }, "magic link");
    } else if (isEvent(event, SendEmailSchema)) {
      mail = { to: event.to, subject: event.subject, text: event.text, html: event.html, kind: event.kind || "email" };
    } else {
      return;
    }
    const messageId = await options.transport.send(mail, envelope.id);
    await trx
      .insertInto("mail_log")
      .values({
        event_id: envelope.id,
        kind: mail.kind,
        recipient: mail.to,
        subject: mail.subject,
        message_id: messageId,
        transport: options.transport.name,
      })
      .onConflict((oc) => oc.column("event_id").doNothing())
      .execute();
    options.logger.info({ to: mail.to, kind: mail.kind, messageId }, "mail sent");
  });
}

