import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { fetchImage, type ImageFetchOptions } from "../http/image-fetch.js";

/**
 * POST /api/v1/image-proxy {url} (docs/requirements.md "Calls", "Validation"): the image bytes, for avatars on other
 * hosts. Signed-in users only; the address rules are the platform's (net/address-guard.ts).
 */
const imageSchema = z.string().meta({
  description: "The image's bytes, with its own Content-Type; cached privately for an hour",
  mediaTypes: ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/x-icon", "image/bmp"],
});

export const imageProxyRoutes: FastifyPluginAsyncZod<{ fetch: ImageFetchOptions }> = async (app, { fetch }) => {
  app.post(
    "/api/v1/image-proxy",
    {
      schema: {
        tags: ["images"],
        operationId: "proxyImage",
        summary: "Fetch a public image (never localhost or a private network)",
        security: security.session,
        body: z.object({ url: z.string().min(1).max(2048) }).meta({ id: "ImageProxyRequest", description: "A public http(s) URL of an image" }),
        response: { 200: imageSchema, 400: apiErrorSchema, 401: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request, reply) => {
      const image = await fetchImage(request.body.url, fetch);
      return reply
        .header("content-type", image.contentType)
        .header("content-length", image.body.length)
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .header("cache-control", "private, max-age=3600")
        // Bytes, not JSON: Fastify sends a Buffer as it is (no serializer for 200).
        .send(image.body as never);
    },
  );
};
