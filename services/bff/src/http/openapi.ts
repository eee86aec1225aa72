import fastifySwagger from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";

/**
 * The OpenAPI document is generated from the same zod schemas the routes validate with,
 * so it cannot drift from what the server accepts and returns.
 */
export async function openApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Transcribe API",
        description: "The product API under /api/v1. JSON, snake_case field names. Errors: {error: {code, message, detail?}}.",
        version: "1.0.0",
      },
      components: {
        securitySchemes: {
          session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
          sessionCookie: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
