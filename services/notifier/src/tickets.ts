import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { AppError, type Logger } from "@transcribe/platform";
import {
  NotifierService,
  SendContactMessageResponseSchema,
  SendSupportMessageResponseSchema,
} from "@transcribe/proto/notifier/v1/notifier";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { NotifierDatabase, TicketsTable } from "./db/migrations.js";
import { escapeHtml } from "@transcribe/platform";
import type { OutgoingMail } from "./domain/mail.js";
import type { MailTransport } from "./transport.js";

const required = (field: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);

const supportSchema = z.object({
  userId: z.string().min(1, "user is required"),
  email: z.email("email must be a valid address"),
  subject: required("subject", 200),
  message: required("message", 5000),
  transcriptionId: z.string().trim().max(64).optional(),
});
const contactSchema = z.object({
  name: required("name", 200),
  email: z.email("email must be a valid address"),
  message: required("message", 5000),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError("invalid_argument", result.error.issues[0]?.message ?? "Invalid request");
  return result.data;
}

type NewTicket = Omit<TicketsTable, "created_at" | "mailed_at">;

/** The ticket as mailed to the support address; Reply-To is the sender, nobody else is mailed. */
export function ticketMail(ticket: NewTicket, supportEmail: string): OutgoingMail {
  const subject = ticket.kind === "support" ? `[Support] ${ticket.subject}` : `[Contact] ${ticket.subject}`;
  const lines = [
    `Ticket: ${ticket.id}`,
    `From: ${ticket.name ? `${ticket.name} <${ticket.email}>` : ticket.email}`,
    ...(ticket.user_id ? [`User: ${ticket.user_id}`] : []),
    ...(ticket.transcription_id ? [`Transcription: ${ticket.transcription_id}`] : []),
    "",
    ticket.message,
  ];
  const text = `${lines.join("\n")}\n`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body><pre style="white-space: pre-wrap; font-family: inherit;">${escapeHtml(text)}</pre></body></html>\n`;
  return { to: supportEmail, subject: subject.replace(/[\r\n]+/g, " "), text, html, kind: `${ticket.kind}-ticket`, replyTo: ticket.email };
}

export interface TicketDeps {
  db: Kysely<NotifierDatabase>;
  transport: MailTransport;
  supportEmail: string;
  logger: Logger;
}

/** Stores the ticket, then mails it; a mail failure leaves the ticket stored (mailed_at null) and logged. */
export async function fileTicket(deps: TicketDeps, ticket: NewTicket): Promise<string> {
  await deps.db.insertInto("tickets").values(ticket).execute();
  try {
    const messageId = await deps.transport.send(ticketMail(ticket, deps.supportEmail), ticket.id);
    await deps.db.updateTable("tickets").set({ mailed_at: new Date() }).where("id", "=", ticket.id).execute();
    await deps.db
      .insertInto("mail_log")
      .values({ event_id: ticket.id, kind: `${ticket.kind}-ticket`, recipient: deps.supportEmail, subject: ticket.subject, message_id: messageId, transport: deps.transport.name })
      .onConflict((oc) => oc.column("event_id").doNothing())
      .execute();
  } catch (error) {
    deps.logger.error({ err: error, ticketId: ticket.id }, "ticket stored but not mailed");
  }
  return ticket.id;
}

export function ticketRoutes(deps: TicketDeps): (router: ConnectRouter) => void {
  return (router) => {
    router.service(NotifierService, {
      async sendSupportMessage(request) {
        const input = parse(supportSchema, { ...request, transcriptionId: request.transcriptionId || undefined });
        const ticketId = await fileTicket(deps, {
          id: randomUUID(),
          kind: "support",
          user_id: input.userId,
          name: "",
          email: input.email,
          subject: input.subject,
          message: input.message,
          transcription_id: input.transcriptionId ?? null,
        });
        return create(SendSupportMessageResponseSchema, { ticketId });
      },
      async sendContactMessage(request) {
        const input = parse(contactSchema, request);
        const ticketId = await fileTicket(deps, {
          id: randomUUID(),
          kind: "contact",
          user_id: null,
          name: input.name,
          email: input.email,
          subject: `Message from ${input.name}`,
          message: input.message,
          transcription_id: null,
        });
        return create(SendContactMessageResponseSchema, { ticketId });
      },
    });
  };
}
