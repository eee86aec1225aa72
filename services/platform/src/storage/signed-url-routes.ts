import type { IncomingMessage } from "node:http";
import { finished, PassThrough, type Readable } from "node:stream";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { AppError, httpStatusOf } from "../errors.js";
import { contentDisposition } from "./content-disposition.js";
import { assertValidKey } from "./keys.js";
import type { LocalObjectStorage } from "./local.js";
import { RangeNotSatisfiableError, type ObjectStorage } from "./port.js";
import { parseRangeHeader } from "./range.js";
import type { SignedRequestRefusal } from "./signing.js";

export interface LocalStorageRoutesOptions {
  /** Path the routes live under, e.g. "/storage"; publicBaseUrl must end with it. */
  prefix: string;
  /**
   * Runs after an upload is stored and before the client gets its 200. If it throws the
   * client gets a 500 even though the object is stored; PUT is idempotent, so a retry
   * stores the same bytes and runs the callback again (at-least-once).
   */
  onPut?: (key: string, size: number) => void | Promise<void>;
}

/** What the routes need; narrower than LocalObjectStorage so tests can wrap it. */
export type SignedUrlStorage = Pick<ObjectStorage, "putObject" | "getObject" | "headObject"> &
  Pick<LocalObjectStorage, "verifySignedRequest">;

const REFUSAL_MESSAGES: Record<SignedRequestRefusal, string> = {
  malformed: "This link is incomplete or malformed",
  "bad signature": "This link is invalid or has been altered",
  "method mismatch": "This link does not allow this kind of request",
  expired: "This link has expired",
};

// Objects are user uploads served from the app's own origin: never let a browser sniff
// or run them as a page, whatever content type they were stored with.
const OBJECT_SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox",
};

/**
 * Serves the URLs minted by LocalObjectStorage.presignPut/presignGet, playing the part S3
 * plays in cluster mode. Register with `app.register(localStorageRoutes(storage, {prefix}))`.
 */
export function localStorageRoutes(storage: SignedUrlStorage, options: LocalStorageRoutesOptions): FastifyPluginAsync {
  const prefix = normalizePrefix(options.prefix);
  return async (app) => {
    // Encapsulated to this plugin: uploads of any type reach the handler unparsed and
    // unbuffered, and other routes keep their JSON parser.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, _payload, done) => done(null));

    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      if (error instanceof AppError) {
        const status = httpStatusOf[error.code];
        if (status >= 500) request.log.error({ err: error }, "object storage request failed");
        return refuse(request, reply, status, error.code, error.message);
      }
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return refuse(request, reply, error.statusCode, "invalid_argument", error.message);
      }
      request.log.error({ err: error }, "object storage request failed");
      return refuse(request, reply, 500, "internal", "Internal error");
    });

    app.put(`${prefix}/*`, async (request, reply) => {
      const { key, query } = signedTarget(request);
      const verdict = storage.verifySignedRequest({ method: "PUT", key, query });
      if (!verdict.ok) return refuse(request, reply, 403, "permission_denied", REFUSAL_MESSAGES[verdict.reason]);
      // verify() only accepts PUT URLs that bind both.
      const contentType = verdict.claims.contentType as string;
      const contentLength = verdict.claims.contentLength as number;
      if (!sameMediaType(request.headers["content-type"], contentType)) {
        return refuse(request, reply, 400, "invalid_argument", `Content-Type must be ${contentType}, as the link was issued for`);
      }
      // Refused before reading a byte when the client announces the wrong size; chunked
      // bodies are counted while streaming by putObject.
      const announced = request.headers["content-length"];
      if (announced !== undefined && Number(announced) !== contentLength) {
        return refuse(request, reply, 400, "invalid_argument", `The upload must be exactly ${contentLength} bytes`);
      }
      const stored = await storage.putObject(key, detachedBody(request.raw), { contentType, contentLength });
      await options.onPut?.(key, stored.size);
      return reply.code(200).send();
    });

    app.route({
      method: ["GET", "HEAD"],
      url: `${prefix}/*`,
      exposeHeadRoute: false,
      handler: async (request, reply) => {
        const { key, query } = signedTarget(request);
        const verdict = storage.verifySignedRequest({ method: "GET", key, query });
        if (!verdict.ok) return refuse(request, reply, 403, "permission_denied", REFUSAL_MESSAGES[verdict.reason]);
        reply.headers({ ...OBJECT_SECURITY_HEADERS, "accept-ranges": "bytes" });
        if (verdict.claims.fileName !== undefined) {
          reply.header("content-disposition", contentDisposition(verdict.claims.fileName));
        }
        const secondsLeft = Math.max(0, Math.floor((verdict.expiresAt.getTime() - Date.now()) / 1000));
        // Lets a media element re-seek without new requests, but never past the link's
        // life; set only on success so a 404 for a not-yet-uploaded object is not cached.
        const cacheControl = `private, max-age=${secondsLeft}`;
        if (request.method === "HEAD") return sendHead(storage, key, reply, cacheControl);

        const range = parseRangeHeader(request.headers.range);
        let object;
        try {
          object = await storage.getObject(key, range ? { range } : {});
        } catch (error) {
          if (!(error instanceof RangeNotSatisfiableError)) throw error;
          reply.header("content-range", `bytes */${error.objectSize}`);
          return refuse(request, reply, 416, "invalid_argument", "Requested range is not satisfiable");
        }
        reply.headers({
          "content-type": object.contentType,
          "content-length": String(object.size),
          "last-modified": object.lastModified.toUTCString(),
          "cache-control": cacheControl,
        });
        if (object.contentRange) {
          const { start, end, totalSize } = object.contentRange;
          reply.code(206).header("content-range", `bytes ${start}-${end}/${totalSize}`);
        }
        return reply.send(object.body);
      },
    });
  };
}

async function sendHead(
  storage: SignedUrlStorage,
  key: string,
  reply: FastifyReply,
  cacheControl: string,
): Promise<FastifyReply> {
  const metadata = await storage.headObject(key);
  if (!metadata) throw new AppError("not_found", "Object not found");
  return reply
    .headers({
      "content-type": metadata.contentType,
      "content-length": String(metadata.size),
      "last-modified": metadata.lastModified.toUTCString(),
      "cache-control": cacheControl,
    })
    .send();
}

/**
 * Key and query straight from the raw URL. The router would percent-decode the path;
 * valid keys never need escaping, so any "%" (e.g. "%2e%2e") is simply an invalid key.
 */
function signedTarget(request: FastifyRequest): { key: string; query: URLSearchParams } {
  const raw = request.raw.url ?? "";
  const queryStart = raw.indexOf("?");
  const pathname = queryStart === -1 ? raw : raw.slice(0, queryStart);
  const base = request.routeOptions.url?.replace(/\*$/, "") ?? "";
  if (!pathname.startsWith(base)) throw new AppError("invalid_argument", "Invalid object key");
  const key = pathname.slice(base.length);
  assertValidKey(key);
  return { key, query: new URLSearchParams(queryStart === -1 ? "" : raw.slice(queryStart + 1)) };
}

/**
 * The request as a stream putObject may destroy when it refuses the body, without
 * destroying the request itself: that would reset the socket and the client would never
 * see the 400.
 */
function detachedBody(request: IncomingMessage): Readable {
  const body = new PassThrough();
  // A request that stops before its end (client gone, even before this handler ran) fails
  // the body, so putObject removes its temp file instead of waiting for bytes forever.
  const stopWatching = finished(request, (error) => {
    if (error) body.destroy(new AppError("invalid_argument", "The upload was interrupted"));
  });
  // Listens from creation: putObject awaits before it reads, and an error in between must
  // stay on the body (putObject still gets it) rather than crash the process as an
  // unhandled 'error' event.
  finished(body, () => {
    request.unpipe(body);
    stopWatching();
  });
  request.pipe(body);
  return body;
}

function refuse(request: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string) {
  if (!request.raw.complete) {
    // Unread upload bytes would otherwise stall this connection for the next request:
    // they are drained, and the connection stays open until they are. Closing it now
    // would reset it while bytes are still arriving, and a reset makes the client (the
    // BFF's proxy) drop the refusal it had not read yet: a 500 instead of this answer.
    request.raw.unpipe();
    request.raw.resume();
  }
  return reply.code(status).type("application/json; charset=utf-8").send({ error: { code, message } });
}

function sameMediaType(sent: string | undefined, signed: string): boolean {
  return sent !== undefined && sent.trim().toLowerCase() === signed.trim().toLowerCase();
}

function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, "");
  if (!/^(\/[A-Za-z0-9._-]+)+$/.test(trimmed)) {
    throw new Error(`localStorageRoutes prefix must look like "/storage", got ${JSON.stringify(prefix)}`);
  }
  return trimmed;
}
