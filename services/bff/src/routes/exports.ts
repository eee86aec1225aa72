import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { enumNames } from "@transcribe/platform";
import { ExportFormat, ExportFormatSchema, type ExportService } from "@transcribe/proto/export/v1/export";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { signedInUserId } from "../http/signed-in-user.js";

/** The API's format names are the proto enum's (txt, docx, …), in its order. */
const formats = enumNames<ExportFormat>(ExportFormatSchema);
const formatNames = formats.names as [string, ...string[]];

export const exportRequestSchema = z
  .object({
    format: z.enum(formatNames).describe("txt, docx, pdf, srt (spec), vtt, json or rttm (the speaker turns)"),
    include_timestamps: z.boolean().default(false).describe("txt, docx, pdf: prefix each segment with its start time"),
    revision: z.number().int().positive().max(2_147_483_647).optional().describe("A revision (GET …/revisions); omitted is the current one"),
  })
  .meta({ id: "ExportRequest", description: "The format of the exported transcript" });

export const exportResponseSchema = z
  .object({
    download_url: z.string().describe("Short-lived signed URL; the file is named after the transcript"),
    format: z.enum(formatNames),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: "ExportResponse", description: "The rendered file, ready to download (GET download_url) until expires_at" });

/** POST /api/v1/transcriptions/{id}/export (spec §7): renders in the export service, returns a download URL. */
export const exportRoutes: FastifyPluginAsyncZod<{ client: Client<typeof ExportService> }> = async (app, { client }) => {
  app.post(
    "/api/v1/transcriptions/:id/export",
    {
      schema: {
        tags: ["exports"],
        operationId: "exportTranscription",
        summary: "Export a completed transcript",
        description: "Renders the transcript in the export service and answers a signed download URL (no session needed to GET it).",
        security: security.sessionOrApiKey,
        params: z.object({ id: z.string().min(1).max(64).describe("The transcription's id") }),
        body: exportRequestSchema,
        response: { 200: exportResponseSchema, 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const format = request.body.format;
      const result = await client.createExport({
        userId: signedInUserId(request),
        transcriptionId: request.params.id,
        format: formats.value(format) ?? ExportFormat.UNSPECIFIED,
        includeTimestamps: request.body.include_timestamps,
        ...(request.body.revision !== undefined ? { revision: request.body.revision } : {}),
      });
      return {
        download_url: result.downloadUrl,
        format,
        expires_at: (result.expiresAt ? timestampDate(result.expiresAt) : new Date()).toISOString(),
      };
    },
  );
};
