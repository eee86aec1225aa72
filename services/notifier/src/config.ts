import { ConfigError, env } from "@transcribe/platform";
import { z } from "zod";

export const notifierConfigSchema = z.object({
  /**
   * Where mail goes: smtp://user:pass@host:port (STARTTLS when offered) or smtps://
   * (TLS from the start). Required unless NODE_ENV=development, where mail is then only
   * logged. The embedded launcher points it at its mail catcher.
   */
  SMTP_URL: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  ),
  MAIL_FROM: z.string().min(3).default("Transcribe <no-reply@localhost>"),
  /** Deadline of one SMTP conversation; a hung server makes the delivery fail and retry. */
  SMTP_TIMEOUT_MS: env.positiveInt(20_000),
  /** Where the support (/support) and contact (/contact-us) forms are mailed. */
  SUPPORT_EMAIL: z.email().default("support@localhost"),
});

export type NotifierConfig = z.infer<typeof notifierConfigSchema> & { NODE_ENV: "development" | "production" | "test" };

export function checkSmtp(config: NotifierConfig): void {
  if (!config.SMTP_URL && config.NODE_ENV !== "development") {
    throw new ConfigError([`SMTP_URL: required when NODE_ENV=${config.NODE_ENV} (not set)`]);
  }
}
