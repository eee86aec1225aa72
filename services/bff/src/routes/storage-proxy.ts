import replyFrom from "@fastify/reply-from";
import type { FastifyInstance } from "fastify";

/** Where the media service serves its signed storage URLs; the BFF forwards the same path. */
export const STORAGE_PREFIX = "/api/v1/storage";
/** Where the export service serves its signed download URLs (more specific, so it wins). */
export const EXPORT_STORAGE_PREFIX = `${STORAGE_PREFIX}/exports`;

export interface StorageUpstream {
  /** Path prefix the upstream serves its signed URLs under; forwarded as it is. */
  prefix: string;
  url: string;
  methods: Array<"GET" | "HEAD" | "PUT">;
}

/**
 * In the embedded mode uploads and audio go through signed URLs that the media service
 * serves. Browsers reach them on the BFF's origin: /api/v1/storage/* is forwarded to
 * media as it is — method, path, query (the signature), Content-Type, Content-Length,
 * Range — streaming both ways, never buffered. The signature is the authorization, so
 * the routes are public and the browser's cookies are not passed on. Export downloads
 * work the same way, served by the export service.
 */
export async function storageProxy(app: FastifyInstance, options: { upstreams: StorageUpstream[]; timeoutMs?: number }): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  for (const upstream of options.upstreams) await proxyOne(app, upstream, timeoutMs);
}

async function proxyOne(app: FastifyInstance, upstream: StorageUpstream, timeoutMs: number): Promise<void> {
  await app.register(async (scope) => {
    // The body stays the raw request stream: no parser reads it, so no size limit or
    // buffering applies here; media counts the bytes against the signed length.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    await scope.register(replyFrom, {
      base: upstream.url,
      // A 100 MB upload from a slow connection takes minutes before media answers.
      undici: { headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
    });
    scope.route({
      method: upstream.methods,
      url: `${upstream.prefix}/*`,
      exposeHeadRoute: false,
      config: { public: true },
      schema: { hide: true },
      handler(request, reply) {
        return reply.from(request.url, {
          rewriteRequestHeaders: (_request, headers) => {
            const { cookie: _cookie, authorization: _authorization, ...rest } = headers;
            return rest;
          },
        });
      },
    });
  });
}
