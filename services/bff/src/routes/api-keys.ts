import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { ApiKey, AuthService } from "@transcribe/proto/auth/v1/auth";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { signedInUserId } from "../http/signed-in-user.js";
import { security } from "../http/openapi.js";

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The key\'s first characters (e.g. "tsk_Ab12Cd"), to recognise it'),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
    expires_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "ApiKey" });

export const createApiKeyRequestSchema = z
  .object({
    name: z.string().trim().min(1, "Name is required").max(100, "Name is too long (max 100 characters)"),
    expires_at: z.iso.datetime({ offset: true }).nullish().describe("When the key stops working; omitted or null: never"),
  })
  .meta({ id: "CreateApiKeyRequest" });

export const createdApiKeySchema = apiKeySchema
  .omit({ last_used_at: true })
  .extend({ key: z.string().describe("The secret, shown only in this answer: send it as Authorization: Bearer <key>") })
  .meta({ id: "CreatedApiKey", description: "The new key; `key` is shown only in this answer" });

const iso = (t: ApiKey["createdAt"]) => (t ? timestampDate(t).toISOString() : null);

function toJson(key: ApiKey): z.infer<typeof apiKeySchema> {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: iso(key.createdAt) ?? new Date(0).toISOString(),
    last_used_at: iso(key.lastUsedAt),
    expires_at: iso(key.expiresAt),
  };
}

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema };

/** API keys in Account Settings: session only (api-key-scope.ts keeps keys themselves out). */
export const apiKeyRoutes: FastifyPluginAsyncZod<{ client: Client<typeof AuthService> }> = async (app, { client }) => {
  const common = { tags: ["api-keys"], security: security.session };

  app.post(
    "/api/v1/api-keys",
    {
      schema: {
        ...common,
        operationId: "createApiKey",
        summary: "Create an API key; its secret is in this answer only",
        body: createApiKeyRequestSchema,
        response: { 201: createdApiKeySchema, ...errors },
      },
    },
    async (request, reply) => {
      const expiresAt = request.body.expires_at ? new Date(request.body.expires_at) : undefined;
      const answer = await client.createApiKey({
        userId: signedInUserId(request),
        name: request.body.name,
        ...(expiresAt ? { expiresAt: timestampFromDate(expiresAt) } : {}),
      });
      const { last_used_at: _unused, ...key } = toJson(answer.apiKey!);
      return reply.code(201).send({ ...key, key: answer.key });
    },
  );

  app.get(
    "/api/v1/api-keys",
    {
      schema: {
        ...common,
        operationId: "listApiKeys",
        summary: "The signed-in user's API keys, newest first (never their secrets)",
        response: { 200: z.object({ api_keys: z.array(apiKeySchema) }).meta({ id: "ApiKeyList", description: "The caller's API keys (never their secrets)" }), ...errors },
      },
    },
    async (request) => {
      const answer = await client.listApiKeys({ userId: signedInUserId(request) });
      return { api_keys: answer.apiKeys.map(toJson) };
    },
  );

  app.delete(
    "/api/v1/api-keys/:id",
    {
      schema: {
        ...common,
        operationId: "revokeApiKey",
        summary: "Revoke an API key; it stops working at once",
        params: z.object({ id: z.string().min(1).max(64) }),
        response: { 204: z.null().describe("Revoked"), ...errors },
      },
    },
    async (request, reply) => {
      await client.deleteApiKey({ userId: signedInUserId(request), id: request.params.id });
      return reply.code(204).send(null);
    },
  );
};
