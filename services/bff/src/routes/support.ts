import type { Client } from "@connectrpc/connect";
import type { NotifierService } from "@transcribe/proto/notifier/v1/notifier";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { signedInUserId } from "../http/signed-in-user.js";

const ticketResponseSchema = z.object({ ticket_id: z.string() }).meta({ id: "TicketResponse" });

export const supportRequestSchema = z
  .object({
    subject: z.string().trim().min(1, "Subject is required").max(200, "Subject is too long"),
    message: z.string().trim().min(1, "Message is required").max(5000, "Message is too long"),
    transcription_id: z.string().trim().max(64).optional(),
  })
  .meta({ id: "SupportRequest" });

export const contactRequestSchema = z
  .object({
    name: z.string().trim().min(1, "Name is required").max(200, "Name is too long"),
    email: z.email("Please enter a valid email address"),
    message: z.string().trim().min(1, "Message is required").max(5000, "Message is too long"),
  })
  .meta({ id: "ContactRequest" });

/** POST /api/v1/support (signed in, per-user limit) and POST /api/v1/contact (public, per-address limit), both to the notifier. */
export const supportRoutes: FastifyPluginAsyncZod<{ client: Client<typeof NotifierService>; perUser: RateLimiter; perAddress: RateLimiter }> = async (
  app,
  { client, perUser, perAddress },
) => {
  app.post(
    "/api/v1/support",
    {
      schema: {
        tags: ["support"],
        summary: "Send a support request (stored and mailed to the support address)",
        security: [{ session: [] }],
        body: supportRequestSchema,
        response: { 200: ticketResponseSchema, 400: apiErrorSchema, 401: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const userId = signedInUserId(request);
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
        summary: "Send a message from the public contact form",
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
