import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { CheckResponseSchema, DependencyCheckSchema, HealthService } from "@transcribe/proto/health/v1/health";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "../logger.js";
import { observeHttpRequests, serveMetrics } from "../observability/http.js";
import { observeRpcHandling } from "../observability/rpc.js";
import { enterRequestContext, REQUEST_ID_HEADER } from "../request-context.js";
import { toConnectError } from "./errors.js";

/** Something a service needs in order to serve: its database, the event bus, ... */
export interface ReadinessCheck {
  name: string;
  /** Resolves when healthy; rejects with a readable reason otherwise. */
  check(): Promise<unknown>;
}

export interface DependencyStatus {
  name: string;
  ok: boolean;
  detail: string;
  latencyMs: number;
}

export interface ServiceServerOptions {
  name: string;
  host: string;
  port: number;
  logger: Logger;
  routes?: (router: ConnectRouter) => void;
  readiness?: ReadinessCheck[];
  /** Extra plain HTTP routes (e.g. signed storage URLs), registered before listening. */
  configure?: (app: FastifyInstance) => Promise<void> | void;
  /** How long in-flight calls may run on shutdown before they are aborted. */
  shutdownTimeoutMs?: number;
  /** Serve GET /metrics (Prometheus text) on this port; on by default (METRICS_ENABLED). */
  metrics?: boolean;
}

export interface ServiceServer {
  readonly app: FastifyInstance;
  readonly url: string;
  /** Stops accepting work (readiness turns 503), waits for in-flight calls, closes. */
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

export async function runReadinessChecks(checks: readonly ReadinessCheck[]): Promise<DependencyStatus[]> {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      const started = performance.now();
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS, `${name} did not answer within ${CHECK_TIMEOUT_MS} ms`);
        return { name, ok: true, detail: "", latencyMs: performance.now() - started };
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        return { name, ok: false, detail, latencyMs: performance.now() - started };
      }
    }),
  );
}

/**
 * Every service's server: Connect RPCs on Fastify, the HealthService every service
 * answers, /healthz (the process is alive), /readyz (it can do its work) and /metrics.
 */
export async function startServiceServer(options: ServiceServerOptions): Promise<ServiceServer> {
  const { logger, name } = options;
  const readiness = options.readiness ?? [];
  let shuttingDown = false;

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    requestIdHeader: REQUEST_ID_HEADER,
    genReqId: () => randomUUID(),
    // Audio uploads never come through RPC; 8 MiB is ample for any message we send.
    bodyLimit: 8 * 1024 * 1024,
  });

  observeHttpRequests(app);
  app.addHook("onRequest", async (request) => {
    enterRequestContext(request.id);
  });

  const mapErrors: Interceptor = (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      throw toConnectError(error, (e) => logger.error({ err: e, rpc: req.method.name }, "unhandled error in RPC"));
    }
  };

  const check = async () => {
    const dependencies = await runReadinessChecks(readiness);
    return { ok: !shuttingDown && dependencies.every((d) => d.ok), dependencies };
  };

  await app.register(fastifyConnectPlugin, {
    interceptors: [observeRpcHandling, mapErrors],
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    routes(router) {
      router.service(HealthService, {
        async check() {
          const status = await check();
          return create(CheckResponseSchema, {
            service: name,
            ok: status.ok,
            dependencies: status.dependencies.map((d) => create(DependencyCheckSchema, d)),
          });
        },
      });
      options.routes?.(router);
    },
  });

  app.get("/healthz", async () => ({ ok: true, service: name }));
  app.get("/readyz", async (_request, reply) => {
    const status = await check();
    return reply.code(status.ok ? 200 : 503).send({ service: name, ...status });
  });
  if (options.metrics ?? true) serveMetrics(app);

  await options.configure?.(app);
  const address = await app.listen({ host: options.host, port: options.port });
  logger.info({ address }, `${name} listening`);

  return {
    app,
    url: address,
    async close() {
      shuttingDown = true;
      await app.close();
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
