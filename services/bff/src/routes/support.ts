import type { Client } from "@connectrpc/connect";
import type { NotifierService } from "@transcribe/proto/notifier/v1/notifier";
import type { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { signedInUserId } from "../http/signed-in-user.js";

const ticketResponseSchema = z.object({ ticket_id: z.string() }).meta({ id: "TicketResponse", description: "The message was stored (and mailed to support)" });

export const supportRequestSchema = z
  .object({
    subject: z.string().trim().min(1, "Subject is required").max(200, "Subject is too long"),
    message: z.string().trim().min(1, "Message is required").max(5000, "Message is too long"),
    transcription_id: z.string().trim().max(64).optional(),
  })
  .meta({ id: "SupportRequest", description: "A support request from a signed-in user" });

export const contactRequestSchema = z
  .object({
    name: z.string().trim().min(1, "Name is required").max(200, "Name is too long"),
    email: z.email("Please enter a valid email address"),
    message: z.string().trim().min(1, "Message is required").max(5000, "Message is too long"),
  })
  .meta({ id: "ContactRequest", description: "A message from the public contact form" });

/** POST /api/v1/support (signed in, per-user limit) and POST /api/v1/contact (public, per-address limit), both to the notifier. */
export const supportRoutes: FastifyPluginAsyncZod<{
  client: Client<typeof NotifierService>;
  transcriptions: Client<typeof TranscriptionService>;
  perUser: RateLimiter;
  perAddress: RateLimiter;
}> = async (app, { client, transcriptions, perUser, perAddress }) => {
  app.post(
    "/api/v1/support",
    {
      schema: {
        tags: ["support"],
        operationId: "sendSupportRequest",
        summary: "Send a support request (stored and mailed to the support address)",
        security: security.session,
        body: supportRequestSchema,
        response: { 200: ticketResponseSchema, 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const userId = signedInUserId(request);
      // A ticket names only the sender's own transcript: support must never be pointed at someone else's
      // (404 like every other route given an id that is not the caller's). A refused ticket does not count.
      if (request.body.transcription_id) await transcriptions.getTranscription({ userId, id: request.body.transcription_id });
      perUser.hit(userId);
      const result = await client.sendSupportMessage({
        userId,
        email: request.user!.email,
        subject: request.body.subject,
        message: request.body.message,
        ...(request.body.transcription_id ? { transcriptionId: request.body.transcription_id } : {}),
      });
      return { ticket_id: result.ticketId };
    },
  );

  app.post(
    "/api/v1/contact",
    {
      config: { public: true },
      schema: {
        tags: ["support"],
        operationId: "sendContactMessage",
        summary: "Send a message from the public contact form",
        security: security.none,
        body: contactRequestSchema,
        response: { 200: ticketResponseSchema, 400: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      perAddress.hit(request.ip);
      const result = await client.sendContactMessage(request.body);
      return { ticket_id: result.ticketId };
    },
  );
};
