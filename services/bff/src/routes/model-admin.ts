import type { Client } from "@connectrpc/connect";
import type { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireAdmin } from "../http/admin.js";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { modelJson, modelSchema } from "./transcriptions.js";

const params = z.object({ id: z.string().min(1).max(100).describe("A catalog model id, e.g. whisper-medium") });

const downloadSchema = z.object({ model: modelSchema }).meta({ id: "ModelDownloadStarted", description: "The model once its download started (present already, or with its progress)" });
const removalSchema = z
  .object({ model: modelSchema, removed: z.boolean().describe("False when no files were there") })
  .meta({ id: "ModelRemoval", description: "The model after its files were removed" });

/**
 * An administrator's speech models (decision 0033): download ahead of use, and removal. The
 * transcription service owns the models directory and the rules (decision 0013); this
 * checks who may.
 */
export const modelAdminRoutes: FastifyPluginAsyncZod<{ client: Client<typeof TranscriptionService>; adminEmails: readonly string[] }> = async (
  app,
  { client, adminEmails },
) => {
  // Administration needs the person's session: an API key is refused before the handler (http/session.ts).
  const common = { tags: ["transcriptions"], security: security.session, params };
  const config = { sessionOnly: true };

  app.post(
    "/api/v1/models/:id/download",
    {
      config,
      schema: {
        ...common,
        operationId: "downloadModel",
        summary: "Download a local model's weights now (administrators); progress shows in GET /api/v1/models",
        response: { 202: downloadSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request, reply) => {
      requireAdmin(request, adminEmails);
      const { model } = await client.downloadModel({ modelId: request.params.id });
      return reply.code(202).send({ model: modelJson(model!) });
    },
  );

  app.delete(
    "/api/v1/models/:id",
    {
      config,
      schema: {
        ...common,
        operationId: "removeModel",
        summary: "Remove a downloaded local model's files (administrators); refused while a job uses it and for the default model",
        response: { 200: removalSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      requireAdmin(request, adminEmails);
      const { model, removed } = await client.removeModel({ modelId: request.params.id });
      return { model: modelJson(model!), removed };
    },
  );
};
