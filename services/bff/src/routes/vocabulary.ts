import type { Client } from "@connectrpc/connect";
import type { TranscriptionService, VocabularyTerm } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { signedInUserId } from "../http/signed-in-user.js";

/**
 * The signed-in user's vocabulary (decision 0029). The transcription service owns it and
 * its limits (500 terms, 100 characters a term, 10 "sounds like" spellings a term); a
 * broken limit is its 400 with the reason.
 */
const termSchema = z
  .object({
    term: z.string().describe("As it should be spelled; at most 100 characters"),
    sounds_like: z.array(z.string()).optional().describe('What it is often misheard as (at most 10); replaced by the term in finished transcripts'),
    language: z.string().optional().describe("A language code; omitted: any language"),
  })
  .meta({ id: "VocabularyTerm" });

const vocabularySchema = z
  .object({ terms: z.array(termSchema).describe("At most 500, in the user's order") })
  .meta({ id: "Vocabulary", description: "Terms the engines are told about, and their \"sounds like\" replacements" });

const toBody = (terms: VocabularyTerm[]) => ({
  terms: terms.map((t) => ({ term: t.term, ...(t.soundsLike.length ? { sounds_like: t.soundsLike } : {}), ...(t.language ? { language: t.language } : {}) })),
});

export const vocabularyRoutes: FastifyPluginAsyncZod<{ client: Client<typeof TranscriptionService> }> = async (app, { client }) => {
  app.get(
    "/api/v1/vocabulary",
    {
      schema: {
        operationId: "getVocabulary",
        tags: ["transcriptions"],
        summary: "The signed-in user's vocabulary",
        security: security.sessionOrApiKey,
        response: { 200: vocabularySchema, 401: apiErrorSchema, 403: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => toBody((await client.getVocabulary({ userId: signedInUserId(request) })).terms),
  );

  app.put(
    "/api/v1/vocabulary",
    {
      schema: {
        operationId: "putVocabulary",
        tags: ["transcriptions"],
        summary: "Replace the signed-in user's vocabulary; answers it as saved (trimmed)",
        security: security.sessionOrApiKey,
        body: vocabularySchema,
        response: { 200: vocabularySchema, 400: apiErrorSchema, 401: apiErrorSchema, 403: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const answer = await client.putVocabulary({
        userId: signedInUserId(request),
        terms: request.body.terms.map((t) => ({ term: t.term, soundsLike: t.sounds_like ?? [], ...(t.language ? { language: t.language } : {}) })),
      });
      return toBody(answer.terms);
    },
  );
};
