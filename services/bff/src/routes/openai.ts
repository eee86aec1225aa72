import multipart from "@fastify/multipart";
import type { Client } from "@connectrpc/connect";
import { AppError } from "@transcribe/platform";
import type { ExportService } from "@transcribe/proto/export/v1/export";
import { TranscriptionStatus, type TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { readMultipartForm } from "../developer/multipart-form.js";
import type { UploadSlots } from "../developer/upload-slots.js";
import { jsonTranscriptionSchema, openAiBody, openAiFormSchema, parseOpenAiFields, settingsFor, verboseJsonSchema, WHISPER_1 } from "../developer/openai-format.js";
import type { DeveloperPipeline } from "../developer/pipeline.js";
import { exportFormats, providerName } from "../extension-points.js";
import { sendApiError } from "../http/api-error.js";
import { openAiErrorSchema } from "../http/openai-error.js";
import { signedInUserId } from "../http/signed-in-user.js";
import { EXPORT_STORAGE_PREFIX } from "./storage-proxy.js";
import { security as openApiSecurity } from "../http/openapi.js";

export interface OpenAiRouteOptions {
  pipeline: DeveloperPipeline;
  transcription: Client<typeof TranscriptionService>;
  exports: Client<typeof ExportService>;
  /** The export service's URL: embedded-mode download URLs (under EXPORT_STORAGE_PREFIX) are fetched there. */
  exportUrl: string;
  syncWaitMs: number;
  maxFileBytes: number;
  /** Uploads received at once (developer/upload-slots.ts), shared with the other multipart routes. */
  uploadSlots: UploadSlots;
}

const security = openApiSecurity.sessionOrApiKey;
const errors = { 400: openAiErrorSchema, 401: openAiErrorSchema, 402: openAiErrorSchema, 403: openAiErrorSchema, 404: openAiErrorSchema, 409: openAiErrorSchema, 422: openAiErrorSchema, 429: openAiErrorSchema, 503: openAiErrorSchema };

const modelListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() })),
  })
  .meta({ id: "OpenAiModelList", description: "Models in OpenAI's list shape; whisper-1 is the server's default model" });


/** The body is a multipart stream read by the handler; the schema documents it (OpenAPI) but validation happens in parseOpenAiFields. */
const documentOnly = () => (data: unknown) => ({ value: data });

/**
 * OpenAI's audio API (POST /v1/audio/transcriptions, /v1/audio/translations, GET /v1/models)
 * over the product's own upload checks and transcription jobs: no second pipeline. The
 * request waits for the job up to OPENAI_SYNC_WAIT_SECONDS, then answers use_async_api.
 */
export const openAiRoutes: FastifyPluginAsyncZod<OpenAiRouteOptions> = async (app, options) => {
  await app.register(multipart);

  async function checkModel(model: string): Promise<void> {
    if (model === WHISPER_1) return;
    const { models } = await options.transcription.listModels({});
    if (!models.some((m) => m.id === model)) throw new AppError("invalid_argument", `The model '${model}' does not exist; GET /v1/models lists them`, { param: "model" });
  }

  async function subtitles(userId: string, transcriptionId: string, format: "srt" | "vtt"): Promise<string> {
    const { downloadUrl } = await options.exports.createExport({ userId, transcriptionId, format: exportFormats.value(format), includeTimestamps: false });
    const url = new URL(downloadUrl);
    const target = url.pathname.startsWith(`${EXPORT_STORAGE_PREFIX}/`) ? new URL(`${url.pathname}${url.search}`, options.exportUrl) : url;
    const response = await fetch(target);
    if (!response.ok) throw new AppError("unavailable", `The ${format} file could not be fetched (export answered ${response.status})`);
    return response.text();
  }

  async function handle(request: FastifyRequest, reply: FastifyReply, task: "transcribe" | "translate") {
    const userId = signedInUserId(request);
    const deadline = Date.now() + options.syncWaitMs;
    const form = await readMultipartForm(request, { maxFileBytes: options.maxFileBytes, slots: options.uploadSlots, userId });
    try {
      if (!form.file) throw new AppError("invalid_argument", "file is required", { param: "file" });
      const fields = parseOpenAiFields(form.fields);
      await checkModel(fields.model);
      const fileId = await options.pipeline.uploadFile(userId, form.file);
      await form.dispose();
      const waitSeconds = Math.round(options.syncWaitMs / 1000);
      const id = await options.pipeline.startWhenReady(userId, fileId, deadline, settingsFor(fields, task));
      if (!id) {
        return sendApiError(reply, 400, "use_async_api", `The file was not processed within ${waitSeconds} seconds; send long files to POST /api/v1/jobs instead`, { param: "file" });
      }
      const done = await options.pipeline.waitForResult(userId, id, deadline);
      if (!done) {
        return sendApiError(
          reply,
          400,
          "use_async_api",
          `The transcription did not finish within ${waitSeconds} seconds. It goes on: poll GET /api/v1/transcriptions/${id}, and send long files to POST /api/v1/jobs`,
          { param: "file", transcription_id: id },
        );
      }
      if (done.status === TranscriptionStatus.FAILED) {
        return sendApiError(reply, 422, "transcription_failed", done.error ?? "The transcription failed", { transcription_id: id });
      }
      const format = fields.response_format;
      if (format === "text") return reply.type("text/plain; charset=utf-8").send(`${done.result?.text ?? ""}\n`);
      if (format === "srt" || format === "vtt") return reply.type("text/plain; charset=utf-8").send(await subtitles(userId, id, format));
      const withWords = fields["timestamp_granularities[]"]?.includes("word") ?? false;
      return reply.send(openAiBody(done, format, task, withWords));
    } finally {
      await form.dispose();
    }
  }

  const response = { 200: z.union([verboseJsonSchema, jsonTranscriptionSchema, z.string().describe("text, srt and vtt: text/plain")]).describe("The transcript in the asked response_format"), ...errors };

  app.post(
    "/v1/audio/transcriptions",
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: "createOpenAiTranscription",
        summary: "OpenAI-compatible: transcribe an audio file (waits up to OPENAI_SYNC_WAIT_SECONDS)",
        tags: ["openai"],
        security,
        consumes: ["multipart/form-data"],
        body: openAiFormSchema,
        response,
      },
    },
    (request, reply) => handle(request, reply, "transcribe"),
  );

  app.post(
    "/v1/audio/translations",
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: "createOpenAiTranslation",
        summary: "OpenAI-compatible: translate an audio file's speech into English text",
        tags: ["openai"],
        security,
        consumes: ["multipart/form-data"],
        body: openAiFormSchema.omit({ language: true, "timestamp_granularities[]": true }).meta({ id: "OpenAiTranslationForm" }),
        response,
      },
    },
    (request, reply) => handle(request, reply, "translate"),
  );

  app.get(
    "/v1/models",
    {
      schema: {
        operationId: "listOpenAiModels",
        summary: 'OpenAI-compatible: the models that can run now, plus "whisper-1" (the server\'s default model)',
        tags: ["openai"],
        security,
        response: { 200: modelListSchema, 401: openAiErrorSchema, 403: openAiErrorSchema, 429: openAiErrorSchema, 503: openAiErrorSchema },
      },
    },
    async () => {
      const { models } = await options.transcription.listModels({});
      const runnable = models.filter((m) => m.available);
      const data = runnable.map((m) => ({ id: m.id, object: "model" as const, created: 0, owned_by: providerName(m.provider) }));
      if (runnable.some((m) => m.isDefault)) data.unshift({ id: WHISPER_1, object: "model", created: 0, owned_by: "local" });
      return { object: "list" as const, data };
    },
  );
};
