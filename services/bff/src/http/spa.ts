import { existsSync } from "node:fs";
import path from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { sendApiError } from "./api-error.js";

const API_PREFIXES = ["/api/", "/auth/"];

/**
 * Serves the built SPA. Hashed assets are cached for a year; index.html never is, so a
 * new deploy is picked up on the next load. Any other GET that is not an API path gets
 * index.html (history fallback) and the SPA's router decides, including its not-found
 * screen. API paths that match nothing get the JSON error body instead.
 */
export async function spa(app: FastifyInstance, options: { distDir: string }): Promise<void> {
  const indexFile = path.join(options.distDir, "index.html");
  const built = existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, {
      root: options.distDir,
      index: false,
      wildcard: false,
      // Our own cache headers below; the plugin's default would override them.
      cacheControl: false,
      setHeaders(res, filePath) {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader("cache-control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
      },
    });
  } else {
    app.log.warn({ distDir: options.distDir }, "web app not built: run `npm run build` (npm start does it)");
  }

  app.setNotFoundHandler((request, reply) => {
    const isApi = API_PREFIXES.some((prefix) => request.url.startsWith(prefix)) || request.url === "/api";
    if (isApi || (request.method !== "GET" && request.method !== "HEAD")) {
      return sendApiError(reply, 404, "not_found", `No route for ${request.method} ${request.url.split("?")[0]}`);
    }
    if (!built) {
      return reply.code(503).type("text/plain").send("The web app is not built yet: run `npm run build`.\n");
    }
    return reply.header("cache-control", "no-cache").sendFile("index.html", { cacheControl: false });
  });
}
