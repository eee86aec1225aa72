import replyFrom from "@fastify/reply-from";
import type { FastifyReplyFromHooks } from "@fastify/reply-from";
import type { FastifyInstance } from "fastify";
import type { DocumentedAuthEndpoint } from "./auth-endpoints.js";

/**
 * /auth/* belongs to the auth service (better-auth). The BFF forwards it untouched:
 * method, path, query, raw body bytes, status, body and every Set-Cookie header, so the
 * browser talks to one origin and cookies stay first-party.
 */
export async function authProxy(app: FastifyInstance, options: { authUrl: string; timeoutMs: number; documented: DocumentedAuthEndpoint[] }): Promise<void> {
  await app.register(async (scope) => {
    // Keep the body as the raw stream: re-serialising a parsed body could change bytes.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    await scope.register(replyFrom, { base: options.authUrl, http: { requestOptions: { timeout: options.timeoutMs } } });
    // The auth service rate-limits per client address: request.ip, which is the socket's
    // address unless the peer is one of TRUSTED_PROXIES (then the client's from its
    // X-Forwarded-For). Whatever chain the client sent is replaced by that one address.
    const forward: FastifyReplyFromHooks = {
      rewriteRequestHeaders: (request, headers) => ({ ...headers, "x-forwarded-for": request.ip }),
    };
    // Catch-alls: better-auth's endpoints are described one by one (auth-endpoints.ts), not as a wildcard.
    const hidden = { schema: { hide: true } };
    // The documented endpoints are routes of their own only so that the document and the
    // route table name them; the auth service validates, so the schemas check nothing here.
    scope.setValidatorCompiler(() => () => true);
    scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
    for (const endpoint of options.documented) {
      scope.route({ method: endpoint.method, url: `/auth${endpoint.path}`, schema: endpoint.schema, handler: (request, reply) => reply.from(request.url, forward) });
    }
    scope.all("/auth", hidden, (request, reply) => reply.from(request.url, forward));
    scope.all("/auth/*", hidden, (request, reply) => reply.from(request.url, forward));
  });
}
