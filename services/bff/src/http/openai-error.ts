import type { FastifyReply } from "fastify";
import { z } from "zod";

/** The OpenAI-compatible routes live under /v1/; their callers (OpenAI's clients) read OpenAI's error shape. */
export const OPENAI_PREFIX = "/v1/";

export function isOpenAiPath(url: string): boolean {
  return url.startsWith(OPENAI_PREFIX);
}

/** OpenAI's error body, which its client libraries turn into typed exceptions. */
export const openAiErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().describe("invalid_request_error, authentication_error, permission_error, rate_limit_error, timeout_error or server_error"),
      param: z.string().nullable(),
      code: z.string().nullable(),
      transcription_id: z.string().optional().describe("With use_async_api: the job that goes on in the background"),
    }),
  })
  .meta({ id: "OpenAiError" });
export type OpenAiError = z.infer<typeof openAiErrorSchema>;

function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** The first field a validation detail names, as OpenAI's `param`. */
function paramOf(detail: unknown): string | null {
  if (!detail || typeof detail !== "object") return null;
  // Our services name the field as `field` (the transcription service: "language", "model").
  const { param, field, issues } = detail as { param?: unknown; field?: unknown; issues?: Array<{ path?: unknown }> };
  if (typeof param === "string") return param;
  if (typeof field === "string" && field) return field;
  const path = issues?.[0]?.path;
  return typeof path === "string" && path ? path : null;
}

export function sendOpenAiError(reply: FastifyReply, status: number, code: string, message: string, detail?: unknown) {
  const extra = detail && typeof detail === "object" && "transcription_id" in detail ? { transcription_id: String((detail as { transcription_id: unknown }).transcription_id) } : {};
  const body: OpenAiError = { error: { message, type: typeOf(status), param: paramOf(detail), code, ...extra } };
  return reply.code(status).type("application/json").send(body);
}
