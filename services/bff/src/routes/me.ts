import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { isAdmin } from "../http/admin.js";
import { security } from "../http/openapi.js";

/** docs/requirements.md "Entities" User, snake_case on the wire. name and image are null when the user has none. */
export const meResponseSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    image: z.string().nullable(),
    email_verified: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    is_admin: z.boolean().describe("Listed in the server's ADMIN_EMAILS: may download and remove speech models"),
  })
  .meta({ id: "User", description: "The signed-in user" });

/** GET /api/v1/me: the signed-in user (from the session the preHandler resolved). */
export const meRoutes: FastifyPluginAsyncZod<{ adminEmails?: readonly string[] }> = async (app, { adminEmails = [] }) => {
  app.get(
    "/api/v1/me",
    {
      schema: {
        tags: ["account"],
        operationId: "getMe",
        summary: "The signed-in user",
        security: security.session,
        response: { 200: meResponseSchema, 401: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const user = request.user!;
      return {
        id: user.id,
        email: user.email,
        name: user.name ?? null,
        image: user.image ?? null,
        email_verified: user.emailVerified,
        created_at: user.createdAt.toISOString(),
        updated_at: user.updatedAt.toISOString(),
        is_admin: isAdmin(user, adminEmails),
      };
    },
  );
};
