import type { FastifyInstance } from "fastify";

/**
 * A proxied request (/auth/*, /api/v1/storage/*) streams its body to the service. When the
 * answer comes first — the service refused the upload, or could not be reached — the rest
 * of the body would stay unread and the browser's next request on this keep-alive
 * connection would hang behind it. Reading it to the end frees the connection; closing it
 * instead would reset it and lose the answer.
 */
export function drainUnreadBodies(app: FastifyInstance): void {
  app.addHook("onResponse", async (request) => {
    if (request.raw.complete || request.raw.destroyed) return;
    request.raw.unpipe();
    request.raw.resume();
  });
}
