import replyFrom from "@fastify/reply-from";
import type { FastifyReplyFromHooks } from "@fastify/reply-from";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { DocumentedAuthEndpoint } from "./auth-endpoints.js";

/** The auth service refuses a body over 1 MB (services/auth/src/http/auth-routes.ts); the edge refuses it first. */
const AUTH_BODY_LIMIT = 1024 * 1024;

/**
 * /auth/* belongs to the auth service (better-auth). The BFF forwards it untouched:
 * method, path, query, raw body bytes, status, body and every Set-Cookie header, so the
 * browser talks to one origin and cookies stay first-party.
 */
export async function authProxy(app: FastifyInstance, options: { authUrl: string; timeoutMs: number; documented: DocumentedAuthEndpoint[] }): Promise<void> {
  await app.register(async (scope) => {
    // The body's bytes as they came (never re-serialised), read whole here so that one over the
    // auth service's limit is a 413 from the edge: streamed on, it was cut off by the auth
    // service's early answer and came back as 503.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: AUTH_BODY_LIMIT }, (_request, body, done) => done(null, body));
    await scope.register(replyFrom, { base: options.authUrl, http: { requestOptions: { timeout: options.timeoutMs } } });
    // The auth service rate-limits per client address: request.ip, which is the socket's
    // address unless the peer is one of TRUSTED_PROXIES (then the client's from its
    // X-Forwarded-For). Whatever chain the client sent is replaced by that one address.
    const hooks: FastifyReplyFromHooks = {
      rewriteRequestHeaders: (request, headers) => ({ ...headers, "x-forwarded-for": request.ip }),
    };
    const forward = (request: FastifyRequest, reply: FastifyReply) =>
      reply.from(request.url, {
        ...hooks,
        // With contentType given, reply-from sends the bytes as they are (it would JSON-encode a Buffer otherwise).
        ...(Buffer.isBuffer(request.body) ? { body: request.body, contentType: request.headers["content-type"] ?? "application/octet-stream" } : {}),
      });
    // Catch-alls: better-auth's endpoints are described one by one (auth-endpoints.ts), not as a wildcard.
    const hidden = { schema: { hide: true } };
    // The documented endpoints are routes of their own only so that the document and the
    // route table name them; the auth service validates, so the schemas check nothing here.
    scope.setValidatorCompiler(() => () => true);
    scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
    for (const endpoint of options.documented) {
      scope.route({ method: endpoint.method, url: `/auth${endpoint.path}`, schema: endpoint.schema, handler: forward });
    }
    scope.all("/auth", hidden, forward);
    scope.all("/auth/*", hidden, forward);
  });
}
