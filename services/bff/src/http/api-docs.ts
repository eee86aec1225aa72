import { createReadStream } from "node:fs";
import { createRequire } from "node:module";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { security } from "./openapi.js";

/**
 * The browsable API reference at /api/docs: Redoc's standalone bundle, served from
 * node_modules (no CDN), rendering /api/v1/openapi.json. Its start-up is a script file of
 * our own, not an inline script, so the CSP every page gets (script-src 'self') covers it
 * unchanged. Redoc loads no fonts or scripts from elsewhere; its one outside request, the
 * "powered by" logo from cdn.redoc.ly, is blocked by the page's own CSP, which is the
 * site's with images narrowed to our own origin (the logo then hides itself).
 */
const pageCsp = [
  "default-src 'self'",
  "base-uri 'self'",
  "script-src 'self'",
  // Redoc's styled-components inject <style> elements at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  // The search index runs in a worker Redoc starts from a blob: URL.
  "worker-src 'self' blob:",
  "object-src 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
const redocBundle = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");

export const API_DOCS_PATH = "/api/docs";

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Transcribe API reference</title>
  </head>
  <body>
    <div id="redoc"></div>
    <script src="${API_DOCS_PATH}/redoc.js"></script>
    <script src="${API_DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

const init = `Redoc.init("/api/v1/openapi.json", { expandResponses: "200", jsonSampleExpandLevel: 4, hideHostname: false }, document.getElementById("redoc"));
`;

export function apiDocs(app: FastifyInstance): void {
  app.get(
    API_DOCS_PATH,
    {
      config: { public: true },
      schema: {
        operationId: "getApiReference",
        summary: "This document as a browsable reference (HTML)",
        tags: ["meta"],
        security: security.none,
        response: { 200: z.string().meta({ description: "The reference page", mediaTypes: ["text/html"] }) },
      },
    },
    async (_request, reply) => reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").header("content-security-policy", pageCsp).send(page),
  );
  // The page's two scripts: assets, not API operations.
  app.get(`${API_DOCS_PATH}/redoc.js`, { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "public, max-age=3600").send(createReadStream(redocBundle)),
  );
  app.get(`${API_DOCS_PATH}/init.js`, { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(init),
  );
}
