import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { AppError, fromConnectError, httpStatusOf } from "@transcribe/platform";
import { ConnectError } from "@connectrpc/connect";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from "fastify-type-provider-zod";
import { z } from "zod";
import { isOpenAiPath, sendOpenAiError } from "./openai-error.js";

/**
 * The one error body of /api/v1 and the BFF: the web client reads `error.message`
 * (and `error.detail` for field problems) whatever went wrong.
 */
export const apiErrorSchema = z
  .object({
    error: z.object({
      code: z.string().describe("Machine-readable: invalid_request, unauthenticated, permission_denied, not_found, failed_precondition, already_exists, resource_exhausted, trial_limit_exceeded, unavailable, internal, ..."),
      message: z.string().describe("A sentence a person can read"),
      detail: z.unknown().optional().describe("Structured detail where there is any (the field issues of invalid_request, the numbers of trial_limit_exceeded)"),
    }),
  })
  .meta({
    id: "ApiError",
    description: "The one error body of the API",
    examples: [{ error: { code: "unauthenticated", message: "Not signed in" } }],
  });
export type ApiError = z.infer<typeof apiErrorSchema>;

export const SERVICE_UNREACHABLE = "The service is temporarily unavailable. Please try again shortly.";

export function sendApiError(reply: FastifyReply, status: number, code: string, message: string, detail?: unknown) {
  // The OpenAI-compatible routes are their own boundary: every refusal there (session
  // hook, validation, upstream errors) speaks OpenAI's shape instead. The matched route
  // decides, not the raw URL: /%761/audio/... is routed to /v1/audio/..., whose response
  // schema only accepts OpenAI's shape.
  if (isOpenAiPath(reply.request.routeOptions.url ?? reply.request.url)) return sendOpenAiError(reply, status, code, message, detail);
  const body: ApiError = { error: { code, message, ...(detail === undefined ? {} : { detail }) } };
  return reply.code(status).type("application/json").send(body);
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues = error.validation.map((v) => ({
        path: v.instancePath.replace(/^\//, "").replace(/\//g, "."),
        message: v.message ?? "invalid",
      }));
      const first = issues[0];
      const message = first ? (first.path ? `${first.path}: ${first.message}` : first.message) : "Invalid request";
      return sendApiError(reply, 400, "invalid_request", message, { issues, in: error.validationContext });
    }
    const thrown: unknown = error;
    if (thrown instanceof ConnectError && thrown.cause !== undefined) {
      // The call never reached the service (refused, reset, DNS): the text is Node's and
      // names internal addresses, so the browser gets a fixed one.
      request.log.error({ err: error }, "service unreachable");
      return sendApiError(reply, 503, "unavailable", SERVICE_UNREACHABLE);
    }
    if (error instanceof AppError || error instanceof ConnectError) {
      const appError = fromConnectError(error);
      if (appError.code === "internal") request.log.error({ err: error }, "upstream internal error");
      // Billing's quota refusal (through transcription) gets its own status and code for the web client.
      if (appError.detail?.reason === "trial_limit_exceeded") {
        return sendApiError(reply, 402, "trial_limit_exceeded", appError.message, appError.detail);
      }
      // A save based on an older revision (transcript editor): the client offers reload or overwrite.
      if (appError.detail?.reason === "revision_conflict") {
        return sendApiError(reply, 409, "revision_conflict", appError.message, appError.detail);
      }
      // An internal error's text is never for users: the services send a fixed one, and one
      // raised in this process (a request that cannot be encoded) would name internals.
      if (appError.code === "internal") return sendApiError(reply, 500, "internal", "Internal error");
      const retryAfter = (appError.detail as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
      if ((appError.code === "resource_exhausted" || appError.code === "unavailable") && typeof retryAfter === "number") reply.header("retry-after", String(retryAfter));
      return sendApiError(reply, httpStatusOf[appError.code], appError.code, appError.message, appError.detail);
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause.issues }, "response does not match its schema");
      return sendApiError(reply, 500, "internal", "Internal error");
    }
    const status = error.statusCode ?? 500;
    if (status >= 500 && isUnreachable(error)) {
      request.log.error({ err: error }, "service unreachable");
      return sendApiError(reply, 503, "unavailable", SERVICE_UNREACHABLE);
    }
    if (status >= 500) {
      request.log.error({ err: error }, "request failed");
      return sendApiError(reply, status, "internal", "Internal error");
    }
    // Fastify's own 4xx (malformed JSON, body too large, unsupported media type).
    return sendApiError(reply, status, error.code?.toLowerCase() ?? "bad_request", error.message);
  });
}

const NETWORK_FAILURES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

/** A proxied call (/auth/*, storage) that could not reach its service or lost the connection to it. */
function isUnreachable(error: FastifyError): boolean {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return NETWORK_FAILURES.has(error.code) || (typeof cause?.code === "string" && NETWORK_FAILURES.has(cause.code));
}

/**
 * Requests Fastify's router refuses before any route or hook runs (a path that does not
 * decode, a path parameter past maxParamLength): the same JSON error body.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") return sendApiError(reply, 414, "uri_too_long", "A part of the URL is too long");
  if (error.code === "FST_ERR_BAD_URL") return sendApiError(reply, 400, "bad_url", "The URL is not validly encoded");
  return sendApiError(reply, 500, "internal", "Internal error");
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers too large,
 * malformed request line) get the same JSON error body as every other refusal.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, message] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "request_timeout", "The request took too long to arrive"]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [431, "headers_too_large", "The request's URL or headers are too large"]
        : [400, "bad_request", "Malformed HTTP request"];
  const body = JSON.stringify({ error: { code, message } } satisfies ApiError);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
