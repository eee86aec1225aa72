import multipart from "@fastify/multipart";
import type { Client } from "@connectrpc/connect";
import { AppError } from "@transcribe/platform";
import type { MediaService } from "@transcribe/proto/media/v1/media";
import { TimestampGranularity } from "@transcribe/proto/transcription/v1/transcription";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { readMultipartForm } from "../developer/multipart-form.js";
import type { UploadSlots } from "../developer/upload-slots.js";
import type { DeveloperPipeline } from "../developer/pipeline.js";
import { apiErrorSchema } from "../http/api-error.js";
import { applyBodyRule, UNKNOWN_FIELD } from "../http/request-body.js";
import { signedInUserId } from "../http/signed-in-user.js";
import { security } from "../http/openapi.js";

/** POST /api/v1/jobs: a file part or a url field, with the web app's transcription settings. */
export const jobFormSchema = z
  .object({
    file: z.string().optional().describe("The audio or video file (binary part); or send url").meta({ format: "binary" }),
    url: z.string().max(4096).optional().describe("A public http(s) URL media imports (the SSRF-safe /retrieve path)"),
    model: z.string().max(100).optional().describe("A catalog model id; omitted: the server's default"),
    language: z.string().max(10).default("auto").describe('A language code, or "auto"'),
    translate_to_en: z.enum(["true", "false"]).default("false"),
    prompt: z.string().max(2000).optional(),
    temperature: z.coerce.number().min(0).max(1).default(0),
    "timestamp_granularities[]": z.array(z.enum(["word", "segment"])).optional(),
    "vocabulary[]": z.array(z.string()).optional().describe("Extra terms for this file only (repeat the field): at most 100, 100 characters each"),
    use_vocabulary: z.enum(["true", "false"]).optional().describe("Use the user's vocabulary; default true"),
  })
  .meta({ id: "JobForm" });

const jobAcceptedSchema = z
  .object({ transcription_id: z.string().describe("Poll GET /api/v1/transcriptions/{transcription_id}, or wait for the transcription.completed webhook") })
  .meta({ id: "JobAccepted", description: "The job was accepted; poll the transcription or wait for the webhook" });

const documentOnly = () => (data: unknown) => ({ value: data });

/** Names OpenAI-style clients also send for the repeated fields. */
const ALIASES: Record<string, string> = { timestamp_granularities: "timestamp_granularities[]", vocabulary: "vocabulary[]" };

/**
 * The form's text fields under the rule of every /api/v1 body (http/request-body.ts): a field
 * the form does not name is refused with its name; an empty one is the same as leaving it out.
 */
function fieldsOf(fields: Map<string, string[]>) {
  const input: Record<string, unknown> = {};
  for (const [sent, values] of fields) {
    const name = ALIASES[sent] ?? sent;
    if (name.endsWith("[]")) input[name] = [...((input[name] as string[] | undefined) ?? []), ...values];
    else if (values.at(-1)) input[name] = values.at(-1);
  }
  const unknown = applyBodyRule(jobFormSchema, input);
  if (unknown.length > 0) throw new AppError("invalid_argument", `${unknown[0]}: ${UNKNOWN_FIELD}`, { field: unknown[0] });
  const parsed = jobFormSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = String(issue.path[0] ?? "");
    throw new AppError("invalid_argument", `${param}: ${issue.message}`, { field: param });
  }
  return parsed.data;
}

/** Async jobs for long files: answers 202 as soon as media has accepted the file and the job is queued. */
export const jobRoutes: FastifyPluginAsyncZod<{ pipeline: DeveloperPipeline; media: Client<typeof MediaService>; mediaWaitMs: number; maxFileBytes: number; uploadSlots: UploadSlots }> = async (
  app,
  options,
) => {
  await app.register(multipart);

  app.post(
    "/api/v1/jobs",
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: "createJob",
        summary: "Start an asynchronous transcription of an uploaded file or a URL; 202 with the transcription id",
        tags: ["jobs"],
        security: security.sessionOrApiKey,
        consumes: ["multipart/form-data"],
        body: jobFormSchema,
        response: {
          202: jobAcceptedSchema,
          400: apiErrorSchema,
          401: apiErrorSchema,
          402: apiErrorSchema,
          403: apiErrorSchema,
          404: apiErrorSchema,
          409: apiErrorSchema,
          429: apiErrorSchema,
          503: apiErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const userId = signedInUserId(request);
      const form = await readMultipartForm(request, { maxFileBytes: options.maxFileBytes, slots: options.uploadSlots, userId });
      try {
        const fields = fieldsOf(form.fields);
        if (form.file && fields.url) throw new AppError("invalid_argument", "Send either a file or a url, not both", { field: "url" });
        let fileId: string;
        if (form.file) fileId = await options.pipeline.uploadFile(userId, form.file);
        else if (fields.url) fileId = (await options.media.importFromUrl({ userId, url: fields.url })).fileId;
        else throw new AppError("invalid_argument", "Send a file or a url", { field: "file" });
        await form.dispose();
        // The job starts on the measured file (duration, quota), never on a declaration; a
        // refusal deletes the file this request stored.
        const words = fields["timestamp_granularities[]"]?.includes("word") ?? false;
        const id = await options.pipeline.startWhenReady(userId, fileId, Date.now() + options.mediaWaitMs, {
          model: fields.model ?? "",
          language: fields.language,
          translateToEn: fields.translate_to_en === "true",
          timestampGranularities: words ? [TimestampGranularity.SEGMENT, TimestampGranularity.WORD] : [TimestampGranularity.SEGMENT],
          temperature: fields.temperature,
          ...(fields.prompt ? { prompt: fields.prompt } : {}),
          vocabulary: fields["vocabulary[]"] ?? [],
          ...(fields.use_vocabulary ? { useVocabulary: fields.use_vocabulary === "true" } : {}),
        });
        if (!id) throw new AppError("unavailable", "The file is still being checked; try again shortly");
        return reply.code(202).send({ transcription_id: id });
      } finally {
        await form.dispose();
      }
    },
  );
};
