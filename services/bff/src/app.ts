import { randomUUID } from "node:crypto";
import { enterRequestContext, type Logger, REQUEST_ID_HEADER } from "@transcribe/platform";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { BffConfig } from "./config.js";
import { installErrorHandler } from "./http/api-error.js";
import { authProxy } from "./http/auth-proxy.js";
import { openApi } from "./http/openapi.js";
import { spa } from "./http/spa.js";
import { healthRoutes } from "./routes/health.js";
import { createHealthClients, upstreamUrls } from "./upstreams.js";

export async function buildBff(config: BffConfig, logger: Logger) {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    requestIdHeader: REQUEST_ID_HEADER,
    genReqId: () => randomUUID(),
    // JSON bodies only; uploads go straight to storage through signed URLs.
    bodyLimit: 1024 * 1024,
    trustProxy: false,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  app.addHook("onRequest", async (request, reply) => {
    enterRequestContext(request.id);
    reply.header(REQUEST_ID_HEADER, request.id);
  });

  await openApi(app);
  const urls = upstreamUrls(config);
  await app.register(healthRoutes, { clients: createHealthClients(urls, config.HEALTH_TIMEOUT_MS) });
  await authProxy(app, { authUrl: urls.auth, timeoutMs: config.SERVICE_TIMEOUT_MS });
  await spa(app, { distDir: config.WEB_DIST_DIR });
  return app;
}
