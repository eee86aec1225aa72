import type { z } from "zod";
import { type CaseOptions, keysToCamel, keysToSnake } from "./case";
import { API_ERROR_MESSAGES, ApiError, httpErrorCode, httpErrorMessage } from "./errors";

export const DEFAULT_TIMEOUT_MS = 60_000;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface ApiClientOptions {
  baseUrl?: string;
  timeoutMs?: number;
  /** Extra headers per request, e.g. a bearer token; cookies go along on their own. */
  authHeaders?: () => Record<string, string> | undefined;
  /** Called on 401 and 403 with the error code found in the body. */
  onAuthError?: (status: 401 | 403, code: string | undefined) => void;
  fetch?: typeof fetch;
  isOnline?: () => boolean;
  /**
   * Convert request keys to snake_case and response keys to camelCase (default true). The
   * product API's wire is snake_case; better-auth's is camelCase already (`callbackURL`,
   * `newPassword`), which the conversion would mangle, so the /auth client turns it off.
   */
  convertCase?: boolean;
}

export interface RequestOptions<T> {
  method?: HttpMethod;
  /** Path with `{name}` placeholders filled from `params`, e.g. "/transcriptions/{id}". */
  path: string;
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** Sent as JSON, with snake_case keys unless the client has `convertCase: false`. */
  body?: unknown;
  formData?: FormData;
  /** Validates the camelCased response; a mismatch is a parse error. */
  schema?: z.ZodType<T>;
  signal?: AbortSignal;
  timeoutMs?: number;
  caseOptions?: CaseOptions;
}

export interface ApiClient {
  request<T = unknown>(options: RequestOptions<T>): Promise<T>;
}

export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const baseUrl = (options.baseUrl ?? "/api/v1").replace(/\/$/, "");
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const isOnline = options.isOnline ?? (() => typeof navigator === "undefined" || navigator.onLine !== false);
  const convertCase = options.convertCase ?? true;
  const toWire = (value: unknown, caseOptions?: CaseOptions) => (convertCase ? keysToSnake(value, caseOptions) : value);
  const fromWire = (value: unknown, caseOptions?: CaseOptions) => (convertCase ? keysToCamel(value, caseOptions) : value);

  return {
    async request<T>(request: RequestOptions<T>): Promise<T> {
      const url = buildUrl(baseUrl, request);
      const headers: Record<string, string> = { accept: "application/json", ...options.authHeaders?.() };
      let body: BodyInit | undefined;
      if (request.formData) {
        body = request.formData;
      } else if (request.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(toWire(request.body, request.caseOptions));
      }
      const timeout = AbortSignal.timeout(request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;

      let response: Response;
      try {
        response = await doFetch(url, { method: request.method ?? "GET", headers, body, signal, credentials: "include" });
      } catch (error) {
        if (signal.aborted) throw new ApiError("timeout", API_ERROR_MESSAGES.timeout);
        if (!isOnline()) throw new ApiError("network", API_ERROR_MESSAGES.network);
        throw new ApiError("other", API_ERROR_MESSAGES.other, undefined, undefined, error);
      }

      const text = await response.text().catch(() => {
        throw new ApiError(signal.aborted ? "timeout" : "other", API_ERROR_MESSAGES[signal.aborted ? "timeout" : "other"]);
      });
      let parsed: unknown;
      try {
        parsed = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        if (!response.ok) throw httpError(response, undefined, options);
        throw new ApiError("parse", API_ERROR_MESSAGES.parse, response.status);
      }
      if (!response.ok) throw httpError(response, parsed, options);

      const data = fromWire(parsed, request.caseOptions);
      if (!request.schema) return data as T;
      const result = request.schema.safeParse(data);
      if (!result.success) throw new ApiError("parse", API_ERROR_MESSAGES.parse, response.status, undefined, result.error);
      return result.data;
    },
  };
}

function httpError(response: Response, body: unknown, options: ApiClientOptions): ApiError {
  const code = httpErrorCode(body);
  if (response.status === 401 || response.status === 403) options.onAuthError?.(response.status, code);
  return new ApiError("http", httpErrorMessage(body, response.statusText), response.status, code, body);
}

function buildUrl(baseUrl: string, request: RequestOptions<unknown>): string {
  const path = request.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.params?.[name];
    if (value === undefined) throw new Error(`Missing path parameter "${name}" for ${request.path}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const query = search.toString();
  return `${baseUrl}${path}${query ? `?${query}` : ""}`;
}
