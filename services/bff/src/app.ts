import { randomUUID } from "node:crypto";
import { createServiceClient, enterRequestContext, type Logger, REQUEST_ID_HEADER } from "@transcribe/platform";
import { ExportService } from "@transcribe/proto/export/v1/export";
import { MediaService } from "@transcribe/proto/media/v1/media";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { BffConfig } from "./config.js";
import { installErrorHandler } from "./http/api-error.js";
import { authProxy } from "./http/auth-proxy.js";
import { openApi } from "./http/openapi.js";
import { spa } from "./http/spa.js";
import { createSessionResolver, requireSessionOnApi } from "./http/session.js";
import { healthRoutes } from "./routes/health.js";
import { meRoutes } from "./routes/me.js";
import { mediaRoutes } from "./routes/media.js";
import { exportRoutes } from "./routes/exports.js";
import { EXPORT_STORAGE_PREFIX, STORAGE_PREFIX, storageProxy } from "./routes/storage-proxy.js";
import { transcriptionRoutes } from "./routes/transcriptions.js";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { createAuthClient, createHealthClients, upstreamUrls } from "./upstreams.js";

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
  const sessions = createSessionResolver(createAuthClient(urls, config.SERVICE_TIMEOUT_MS), { ttlMs: config.SESSION_CACHE_TTL_MS });
  requireSessionOnApi(app, sessions);
  await app.register(healthRoutes, { clients: createHealthClients(urls, config.HEALTH_TIMEOUT_MS) });
  await app.register(meRoutes);
  await app.register(mediaRoutes, { client: createServiceClient(MediaService, urls.media, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(transcriptionRoutes, {
    client: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    media: createServiceClient(MediaService, urls.media, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
  });
  await app.register(exportRoutes, { client: createServiceClient(ExportService, urls.export, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await storageProxy(app, {
    upstreams: [
      { prefix: STORAGE_PREFIX, url: urls.media, methods: ["GET", "HEAD", "PUT"] },
      { prefix: EXPORT_STORAGE_PREFIX, url: urls.export, methods: ["GET", "HEAD"] },
    ],
  });
  await authProxy(app, { authUrl: urls.auth, timeoutMs: config.SERVICE_TIMEOUT_MS });
  await spa(app, { distDir: config.WEB_DIST_DIR });
  return app;
}
