import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { TranscriptionService, Voice } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { signedInUserId } from "../http/signed-in-user.js";

export const voiceSettingsSchema = z
  .object({ enabled: z.boolean().describe("Whether speakers you name are remembered and recognised in later transcripts; off by default") })
  .meta({ id: "VoiceSettings", description: "The voice library switch (decision 0031)" });

export const voiceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    samples: z.number().int().describe("How many named speakers taught this voice"),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "Voice", description: "A saved voice: a name and a voice print (never audio; the print itself is never sent)" });

const iso = (t: Voice["createdAt"]) => (t ? timestampDate(t).toISOString() : new Date(0).toISOString());

function toVoice(v: Voice): z.infer<typeof voiceSchema> {
  return { id: v.id, name: v.name, samples: v.samples, created_at: iso(v.createdAt), updated_at: iso(v.updatedAt) };
}

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 429: apiErrorSchema, 503: apiErrorSchema };
const idParams = z.object({ id: z.string().min(1).max(64).describe("The voice's id") });

/**
 * The voice library (Account Settings, decision 0031), forwarded to the transcription
 * service. Session only: voices are about people, an API key does not reach them.
 */
export const voiceRoutes: FastifyPluginAsyncZod<{ client: Client<typeof TranscriptionService> }> = async (app, { client }) => {
  const common = { tags: ["voices"], security: security.session };

  app.get(
    "/api/v1/voices/settings",
    { schema: { ...common, operationId: "getVoiceSettings", summary: "Whether the voice library is on", response: { 200: voiceSettingsSchema, ...errors } } },
    async (request) => ({ enabled: (await client.getVoiceSettings({ userId: signedInUserId(request) })).enabled }),
  );

  app.put(
    "/api/v1/voices/settings",
    {
      schema: {
        ...common,
        operationId: "setVoiceSettings",
        summary: "Turn the voice library on or off; off deletes every saved voice",
        body: voiceSettingsSchema,
        response: { 200: voiceSettingsSchema, ...errors },
      },
    },
    async (request) => ({ enabled: (await client.setVoiceSettings({ userId: signedInUserId(request), enabled: request.body.enabled })).enabled }),
  );

  app.get(
    "/api/v1/voices",
    {
      schema: {
        ...common,
        operationId: "listVoices",
        summary: "The signed-in user's saved voices, by name",
        response: { 200: z.object({ voices: z.array(voiceSchema) }).meta({ id: "VoiceList", description: "The caller's saved voices" }), ...errors },
      },
    },
    async (request) => ({ voices: (await client.listVoices({ userId: signedInUserId(request) })).voices.map(toVoice) }),
  );

  app.patch(
    "/api/v1/voices/:id",
    {
      schema: {
        ...common,
        operationId: "renameVoice",
        summary: "Rename a saved voice (1 to 80 characters, trimmed); later transcripts use the new name",
        params: idParams,
        body: z.object({ name: z.string().max(10_000) }).meta({ id: "RenameVoice", description: "The voice's new name" }),
        response: { 200: voiceSchema, ...errors },
      },
    },
    async (request) => toVoice((await client.renameVoice({ userId: signedInUserId(request), id: request.params.id, name: request.body.name })).voice!),
  );

  app.delete(
    "/api/v1/voices/:id",
    {
      schema: { ...common, operationId: "deleteVoice", summary: "Delete a saved voice and its voice print for good", params: idParams, response: { 204: z.null().describe("Deleted"), ...errors } },
    },
    async (request, reply) => {
      await client.deleteVoice({ userId: signedInUserId(request), id: request.params.id });
      return reply.code(204).send(null);
    },
  );
};
