import type { Database, Logger, ServiceParts } from "@transcribe/platform";
import type { Kysely } from "kysely";
import { checkSmtp, type NotifierConfig } from "./config.js";
import type { NotifierDatabase } from "./db/migrations.js";
import { mailConsumer } from "./events/mail-consumer.js";
import { ticketRoutes } from "./tickets.js";
import { logTransport, type MailTransport, smtpTransport } from "./transport.js";

export function buildNotifier(deps: { config: NotifierConfig; logger: Logger; database: Database<any> }) {
  const { config, logger } = deps;
  checkSmtp(config);
  const transport: MailTransport = config.SMTP_URL
    ? smtpTransport({ url: config.SMTP_URL, from: config.MAIL_FROM, timeoutMs: config.SMTP_TIMEOUT_MS })
    : logTransport({ from: config.MAIL_FROM, logger });
  if (!config.SMTP_URL) logger.warn("SMTP_URL is not set: mail is written to the log only (development)");
  const handler = mailConsumer({
    db: deps.database.db as Kysely<NotifierDatabase>,
    transport,
    logger,
    logMagicLinks: config.NODE_ENV === "development",
  });
  const parts: ServiceParts = {
    routes: ticketRoutes({ db: deps.database.db as Kysely<NotifierDatabase>, transport, supportEmail: config.SUPPORT_EMAIL, logger }),
    subscriptions: [{ topics: ["notifier.mail"], handler }],
    background: [{ start: () => {}, stop: async () => transport.close() }],
  };
  return { parts, transport, handler };
}
