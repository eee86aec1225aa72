import type { FastifyInstance } from "fastify";
import { sendApiError } from "./api-error.js";

export const NUL_MESSAGE = "Text must not contain NUL characters";

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (depth > 32 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((item) => hasNul(item, depth + 1));
  return Object.entries(value).some(([key, item]) => key.includes("\u0000") || hasNul(item, depth + 1));
}

/**
 * PostgreSQL text cannot hold U+0000, so a NUL in any field would reach a service only to
 * fail its query with a 500. /api/v1 refuses it up front, once for every route: 400 with
 * the JSON error, after the session check (a caller without a session still gets 401).
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  app.addHook("preValidation", async (request, reply) => {
    if (!request.routeOptions.url?.startsWith("/api/")) return;
    // Parsed JSON only: raw bodies (the signed webhook's bytes, proxied uploads) are streams or buffers.
    const body = request.body;
    const parsed = typeof body === "string" || Array.isArray(body) || (body !== null && typeof body === "object" && Object.getPrototypeOf(body) === Object.prototype);
    if (hasNul(request.params) || hasNul(request.query) || (parsed && hasNul(body))) {
      return sendApiError(reply, 400, "invalid_argument", NUL_MESSAGE);
    }
  });
}
