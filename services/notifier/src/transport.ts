import type { Logger } from "@transcribe/platform";
import nodemailer from "nodemailer";
import { messageIdFor, type OutgoingMail } from "./domain/mail.js";

export interface MailTransport {
  readonly name: "smtp" | "log";
  /** Sends one mail; resolves with its Message-ID once the server accepted it. */
  send(mail: OutgoingMail, eventId: string): Promise<string>;
  verify(): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer: multipart/alternative with the plain-text and the HTML body. */
export function smtpTransport(options: { url: string; from: string; timeoutMs: number }): MailTransport {
  const url = new URL(options.url);
  const transporter = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === "smtps:" ? 465 : 587,
    secure: url.protocol === "smtps:",
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    name: "smtp",
    async send(mail, eventId) {
      const messageId = messageIdFor(eventId, options.from);
      await transporter.sendMail({
        from: options.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId,
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
        headers: { "X-Transcribe-Kind": mail.kind },
      });
      return messageId;
    },
    async verify() {
      await transporter.verify();
    },
    close: () => transporter.close(),
  };
}

/** Development without SMTP_URL: the mail goes to the log only. */
export function logTransport(options: { from: string; logger: Logger }): MailTransport {
  return {
    name: "log",
    async send(mail, eventId) {
      options.logger.info({ to: mail.to, subject: mail.subject, text: mail.text }, "mail (no SMTP_URL: logged, not sent)");
      return messageIdFor(eventId, options.from);
    },
    async verify() {},
    close() {},
  };
}
