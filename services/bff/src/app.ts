import { randomUUID } from "node:crypto";
import { addressPolicy, createServiceClient, enterRequestContext, type HostResolver, type Logger, observeHttpRequests, REQUEST_ID_HEADER } from "@transcribe/platform";
import { imageProxyRoutes } from "./routes/image-proxy.js";
import { supportRoutes } from "./routes/support.js";
import { createRateLimiter } from "./http/rate-limit.js";
import { NotifierService } from "@transcribe/proto/notifier/v1/notifier";
import { greetingRoutes, groqGreetingWriter, type GreetingWriter } from "./routes/greeting.js";
import { ExportService } from "@transcribe/proto/export/v1/export";
import { MediaService } from "@transcribe/proto/media/v1/media";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { BffConfig } from "./config.js";
import { clientErrorHandler, frameworkErrorHandler, installErrorHandler } from "./http/api-error.js";
import { authProxy } from "./http/auth-proxy.js";
import { documentedAuthEndpoints } from "./http/auth-endpoints.js";
import { crossSiteGuard } from "./http/csrf.js";
import { recordRoutes } from "./http/route-table.js";
import { drainUnreadBodies } from "./http/unread-body.js";
import { refuseNulCharacters } from "./http/nul-guard.js";
import { requestBodyRule } from "./http/request-body.js";
import { securityHeaders, thirdPartyOrigins } from "./http/security-headers.js";
import { openApi, sessionCookieName } from "./http/openapi.js";
import { apiDocs } from "./http/api-docs.js";
import { probeRoutes } from "./http/probes.js";
import { spa } from "./http/spa.js";
import { createSessionResolver, requireSessionOnApi } from "./http/session.js";
import { engineCheckFrom, healthRoutes } from "./routes/health.js";
import { meRoutes } from "./routes/me.js";
import { modelAdminRoutes } from "./routes/model-admin.js";
import { mediaRoutes } from "./routes/media.js";
import { exportRoutes } from "./routes/exports.js";
import { billingRoutes } from "./routes/billing.js";
import { BillingService } from "@transcribe/proto/billing/v1/billing";
import { blogRoutes } from "./routes/blog.js";
import { BlogService } from "@transcribe/proto/blog/v1/blog";
import { EXPORT_STORAGE_PREFIX, STORAGE_PREFIX, storageProxy } from "./routes/storage-proxy.js";
import { transcriptionRoutes } from "./routes/transcriptions.js";
import { vocabularyRoutes } from "./routes/vocabulary.js";
import { transcriptEditingRoutes } from "./routes/transcript-editing.js";
import { voiceRoutes } from "./routes/voices.js";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { createAuthClient, createHealthClients, upstreamUrls } from "./upstreams.js";
import { apiKeyRoutes } from "./routes/api-keys.js";
import { openAiRoutes } from "./routes/openai.js";
import { jobRoutes } from "./routes/jobs.js";
import { developerPipeline } from "./developer/pipeline.js";
import { createUploadSlots } from "./developer/upload-slots.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { WebhooksService } from "@transcribe/proto/webhooks/v1/webhooks";
import fastifyWebsocket from "@fastify/websocket";
import { tmpdir } from "node:os";
import path from "node:path";
import { LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import { MAX_FRAME_BYTES } from "./live/close-codes.js";
import { LiveRecords } from "./live/records.js";
import { LiveSessions } from "./live/sessions.js";
import { liveRoutes } from "./routes/live.js";
import { realtimeRoutes } from "./routes/realtime.js";

export interface BffOverrides {
  /** The image proxy's DNS resolver (tests answer with their own addresses). */
  imageResolver?: HostResolver;
  /** Replaces the Groq call of the AI greeting (tests). */
  greetingWriter?: GreetingWriter;
}

export async function buildBff(config: BffConfig, logger: Logger, overrides: BffOverrides = {}) {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    requestIdHeader: REQUEST_ID_HEADER,
    genReqId: () => randomUUID(),
    // JSON bodies only; uploads go straight to storage through signed URLs.
    bodyLimit: 1024 * 1024,
    // X-Forwarded-For counts only from the proxies named in TRUSTED_PROXIES (fastify's
    // proxy-addr): request.ip is then the client's address, never a value a client made up.
    trustProxy: config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  observeHttpRequests(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  recordRoutes(app);
  drainUnreadBodies(app);
  app.addHook("onRequest", async (request, reply) => {
    enterRequestContext(request.id);
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  const thirdParty = thirdPartyOrigins(config);
  await securityHeaders(app, {
    publicBaseUrl: config.PUBLIC_BASE_URL,
    production: config.NODE_ENV === "production",
    connectOrigins: thirdParty.connect,
    scriptOrigins: thirdParty.script,
  });
  crossSiteGuard(app, {
    trustedOrigins: [config.PUBLIC_BASE_URL, ...config.AUTH_TRUSTED_ORIGINS],
    // Their callers prove themselves with a signature, not with the session cookie.
    exemptRoutes: ["/api/v1/billing/webhook", "/api/v1/blog/webhook", `${STORAGE_PREFIX}/*`, `${EXPORT_STORAGE_PREFIX}/*`],
  });

  await openApi(app, { publicBaseUrl: config.PUBLIC_BASE_URL, sessionCookieName: sessionCookieName(config.NODE_ENV) });
  apiDocs(app);
  const urls = upstreamUrls(config);
  const sessions = createSessionResolver(createAuthClient(urls, config.SERVICE_TIMEOUT_MS), { ttlMs: config.SESSION_CACHE_TTL_MS });
  requireSessionOnApi(app, sessions);
  refuseNulCharacters(app);
  requestBodyRule(app);
  await app.register(healthRoutes, {
    clients: createHealthClients(urls, config.HEALTH_TIMEOUT_MS),
    engine: engineCheckFrom(createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.HEALTH_TIMEOUT_MS }), config.HEALTH_TIMEOUT_MS),
  });
  await app.register(meRoutes, { adminEmails: config.ADMIN_EMAILS });
  await app.register(mediaRoutes, { client: createServiceClient(MediaService, urls.media, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(transcriptionRoutes, {
    client: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    media: createServiceClient(MediaService, urls.media, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
  });
  await app.register(modelAdminRoutes, {
    client: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    adminEmails: config.ADMIN_EMAILS,
  });
  await app.register(vocabularyRoutes, { client: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(transcriptEditingRoutes, { client: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(voiceRoutes, { client: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(exportRoutes, { client: createServiceClient(ExportService, urls.export, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  // Developer API (docs/api.md "Use it from code"): API keys, OpenAI-compatible /v1, async jobs.
  await app.register(apiKeyRoutes, { client: createAuthClient(urls, config.SERVICE_TIMEOUT_MS) });
  const developer = developerPipeline({
    media: createServiceClient(MediaService, urls.media, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    transcription: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    mediaUrl: urls.media,
    logger,
  });
  const uploadSlots = createUploadSlots({ total: config.API_MAX_CONCURRENT_UPLOADS, perUser: config.API_MAX_CONCURRENT_UPLOADS_PER_USER });
  await app.register(openAiRoutes, {
    pipeline: developer,
    transcription: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    exports: createServiceClient(ExportService, urls.export, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    exportUrl: urls.export,
    syncWaitMs: config.OPENAI_SYNC_WAIT_SECONDS * 1000,
    maxFileBytes: config.API_MAX_FILE_BYTES,
    uploadSlots,
  });
  await app.register(webhookRoutes, { client: createServiceClient(WebhooksService, urls.webhooks, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(jobRoutes, {
    pipeline: developer,
    media: createServiceClient(MediaService, urls.media, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    mediaWaitMs: config.API_MEDIA_WAIT_SECONDS * 1000,
    maxFileBytes: config.API_MAX_FILE_BYTES,
    uploadSlots,
  });
  // Live transcription (decision 0030): WebSockets relayed to the live worker's gRPC stream.
  const liveSessions = new LiveSessions({
    live: createServiceClient(LiveTranscriptionService, urls["transcription-live"], { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    pipeline: developer,
    records: new LiveRecords(config.LIVE_SPOOL_DIR ?? path.join(tmpdir(), "transcribe-live")),
    maxSeconds: config.LIVE_MAX_SECONDS,
    resumeMs: config.LIVE_RESUME_SECONDS * 1000,
    logger,
  });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: MAX_FRAME_BYTES + 1024 },
    // Live sessions first (decision 0037): they stay on disk and their clients are told to
    // reconnect (1012), then the plugin's own closing of what is left.
    preClose(this: FastifyInstance, done: (error?: Error) => void) {
      liveSessions.suspendAll();
      for (const client of this.websocketServer.clients) client.close();
      this.websocketServer.close(() => done());
    },
  });
  const live = { sessions: liveSessions, trustedOrigins: [config.PUBLIC_BASE_URL, ...config.AUTH_TRUSTED_ORIGINS] };
  await app.register(liveRoutes, live);
  await app.register(realtimeRoutes, live);
  // Sessions of an earlier process, or of a replica that died, on this spool directory
  // (decisions 0037, 0040): resumed by their clients, or saved when the wait is over. Only
  // a directory of the deployment's own is swept: the default temporary one may be shared
  // by other programs' sessions. Every process renews the leases of its own sessions.
  app.addHook("onReady", async () => {
    if (config.LIVE_SPOOL_DIR) await liveSessions.adoptLeftovers();
    liveSessions.startHeartbeat(config.LIVE_SPOOL_DIR !== undefined);
  });
  await app.register(billingRoutes, { client: createServiceClient(BillingService, urls.billing, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(blogRoutes, { client: createServiceClient(BlogService, urls.blog, { timeoutMs: config.SERVICE_TIMEOUT_MS }) });
  await app.register(imageProxyRoutes, {
    fetch: {
      policy: addressPolicy(config.IMAGE_PROXY_ALLOW_CIDRS, "IMAGE_PROXY_ALLOW_CIDRS"),
      maxBytes: config.IMAGE_PROXY_MAX_BYTES,
      timeoutMs: config.IMAGE_PROXY_TIMEOUT_MS,
      ...(overrides.imageResolver ? { resolver: overrides.imageResolver } : {}),
    },
  });
  await app.register(supportRoutes, {
    client: createServiceClient(NotifierService, urls.notifier, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    transcriptions: createServiceClient(TranscriptionService, urls.transcription, { timeoutMs: config.SERVICE_TIMEOUT_MS }),
    perUser: createRateLimiter({ limit: config.SUPPORT_RATE_LIMIT_PER_HOUR, windowMs: 3_600_000 }),
    perAddress: createRateLimiter({ limit: config.CONTACT_RATE_LIMIT_PER_HOUR, windowMs: 3_600_000 }),
  });
  await app.register(greetingRoutes, {
    writer:
      overrides.greetingWriter ??
      (config.GROQ_API_KEY ? groqGreetingWriter({ apiKey: config.GROQ_API_KEY, model: config.GROQ_MODEL }) : undefined),
    timeoutMs: config.AI_GREETING_TIMEOUT_MS,
    logger,
  });
  await storageProxy(app, {
    upstreams: [
      { prefix: STORAGE_PREFIX, url: urls.media, methods: ["GET", "HEAD", "PUT"] },
      { prefix: EXPORT_STORAGE_PREFIX, url: urls.export, methods: ["GET", "HEAD"] },
    ],
  });
  await authProxy(app, { authUrl: urls.auth, timeoutMs: config.SERVICE_TIMEOUT_MS, documented: documentedAuthEndpoints });
  probeRoutes(app, { distDir: config.WEB_DIST_DIR });
  await spa(app, { distDir: config.WEB_DIST_DIR });
  return app;
}
