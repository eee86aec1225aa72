import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Auth } from "../auth.js";
import { renderAuthErrorPage } from "../domain/error-page.js";

/** Headers that describe one hop of the connection, not the message; Fastify sets its own. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "set-cookie"]);

/**
 * Mounts better-auth at /auth/* on the service's Fastify: the Fastify request becomes a
 * Web Request addressed to the browser-facing URL (AUTH_BASE_URL + path), and the Web
 * Response goes back with its status, body and every Set-Cookie as a separate header.
 */
export async function authRoutes(app: FastifyInstance, options: { auth: Auth; baseUrl: string }): Promise<void> {
  const base = new URL(options.baseUrl);
  await app.register(async (scope) => {
    // better-auth parses bodies itself (JSON and forms); hand it the bytes as they came.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));

    // The page of docs/requirements.md "Screens", in place of better-auth's own (which production turns into a redirect).
    scope.get("/auth/error", async (request, reply) => {
      const code = (request.query as { error?: unknown }).error;
      return reply
        .type("text/html; charset=utf-8")
        .header("cache-control", "no-store")
        .send(renderAuthErrorPage(typeof code === "string" ? code : undefined));
    });

    const forward = (request: FastifyRequest, reply: FastifyReply) => handle(options.auth, base, request, reply);
    scope.all("/auth", forward);
    scope.all("/auth/*", forward);
  });
}

async function handle(auth: Auth, base: URL, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  // Rate limits key on the client address. Behind the BFF it is in X-Forwarded-For;
  // a direct caller (tests, another service) is keyed on its own address.
  if (!headers.has("x-forwarded-for")) headers.set("x-forwarded-for", request.ip);

  const hasBody = request.method !== "GET" && request.method !== "HEAD" && Buffer.isBuffer(request.body);
  const webRequest = new Request(new URL(request.url, base), {
    method: request.method,
    headers,
    ...(hasBody ? { body: request.body as Buffer } : {}),
  });

  const response = await auth.handler(webRequest);

  reply.code(response.status);
  response.headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) reply.header(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) reply.header("set-cookie", cookies);
  // better-auth says when to retry in X-Retry-After; clients and proxies read Retry-After.
  const retryAfter = response.headers.get("x-retry-after");
  if (response.status === 429 && retryAfter) reply.header("retry-after", retryAfter);
  const body = Buffer.from(await response.arrayBuffer());
  await reply.send(body.length > 0 ? body : undefined);
}
