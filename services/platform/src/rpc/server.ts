import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type { Server as HttpServer } from "node:http";
import * as http2 from "node:http2";
import type { Socket } from "node:net";
import { create, type DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { createServer as createPolyglotServer } from "@httptoolkit/httpolyglot";
import { Health } from "@transcribe/proto/grpc/health/v1/health";
import { CheckResponseSchema, DependencyCheckSchema, HealthService } from "@transcribe/proto/health/v1/health";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "../logger.js";
import { observeHttpRequests, serveMetrics } from "../observability/http.js";
import { observeRpcHandling } from "../observability/rpc.js";
import { enterRequestContext, REQUEST_ID_HEADER, setRequestUser } from "../request-context.js";
import { AUTHORIZATION_HEADER, type TokenVerifier } from "./credentials.js";
import { toConnectError } from "./errors.js";
import { registerGrpcHealth } from "./grpc-health.js";
import { type Grants, isGranted, openServices, userBoundCallers } from "./policy.js";
import { registerReflection } from "./reflection.js";

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
  /**
   * Who may call: tokens are verified and checked against the grants. Without it every
   * caller is trusted (tests of one service, development without keys).
   */
  callers?: { verifier: TokenVerifier; grants: Grants };
  /** grpc.reflection.v1/v1alpha (GRPC_REFLECTION). */
  reflection?: boolean;
  /** PEM certificate chain and key: HTTPS with HTTP/2 and HTTP/1.1 chosen by ALPN. */
  tls?: { cert: Buffer; key: Buffer };
  /** grpc.health.v1 Watch streams open at once; past it a Watch is refused (RESOURCE_EXHAUSTED). */
  maxHealthWatches?: number;
}

export interface ServiceServer {
  readonly app: FastifyInstance;
  readonly url: string;
  /** Stops accepting work (readiness turns 503), waits for in-flight calls, closes. */
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;
/** How long one run of the readiness checks answers every unauthenticated caller (probes, Watch streams). */
const SHARED_CHECK_MS = 1_000;
const DEFAULT_MAX_HEALTH_WATCHES = 100;

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
 * Every service's server (decision 0023): one port speaking HTTP/2 (gRPC, gRPC-Web and
 * Connect) and HTTP/1.1 (Connect, /healthz, /readyz, /metrics, a service's own routes such
 * as signed storage URLs), told apart by the connection's first bytes (cleartext) or by
 * ALPN (TLS). The HealthService every service answers, grpc.health.v1, reflection when
 * enabled, and the caller check on every RPC.
 */
export async function startServiceServer(options: ServiceServerOptions): Promise<ServiceServer> {
  const { logger, name } = options;
  const readiness = options.readiness ?? [];
  let shuttingDown = false;

  const changes = new EventEmitter();
  const sockets = new Set<Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let rawServer: HttpServer | undefined;

  const app = Fastify({
    serverFactory: (handler) => {
      const server = options.tls
        ? http2.createSecureServer({ ...options.tls, allowHTTP1: true }, handler as never)
        : createPolyglotServer(handler);
      server.on("connection", (socket: Socket) => {
        // httpolyglot accepts on a plain net.Server, which leaves Nagle on: a response's
        // HEADERS and DATA frames then wait for the peer's delayed ACK (~40 ms a call).
        socket.setNoDelay(true);
        sockets.add(socket);
        socket.once("close", () => sockets.delete(socket));
      });
      server.on("session", (session: http2.ServerHttp2Session) => {
        sessions.add(session);
        session.once("close", () => sessions.delete(session));
      });
      rawServer = server as unknown as HttpServer;
      return rawServer;
    },
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
  // Unauthenticated callers (/readyz, grpc.health.v1 Check and Watch) share one run of the
  // checks per SHARED_CHECK_MS, so any number of probes and Watch streams cost the
  // database one ping; a change (shutdown) is seen at once.
  let shared: { at: number; result: Promise<Awaited<ReturnType<typeof check>>> } | undefined;
  const sharedCheck = () => {
    if (!shared || performance.now() - shared.at > SHARED_CHECK_MS) shared = { at: performance.now(), result: check() };
    return shared.result.then((status) => ({ ...status, ok: status.ok && !shuttingDown }));
  };
  changes.on("change", () => {
    shared = undefined;
  });

  const authenticate = options.callers ? checkCaller(options.callers) : undefined;
  const served: DescService[] = [];
  await app.register(fastifyConnectPlugin, {
    interceptors: [observeRpcHandling, honourDeadline, ...(authenticate ? [authenticate] : []), mapErrors],
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    routes(connectRouter) {
      // Remember what is served, for reflection and grpc.health.v1's service names.
      const router = new Proxy(connectRouter, {
        get(target, property, receiver) {
          if (property === "service") {
            return (service: DescService, ...rest: unknown[]) => {
              served.push(service);
              return (target.service as (...args: unknown[]) => ConnectRouter)(service, ...rest);
            };
          }
          return Reflect.get(target, property, receiver);
        },
      });
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
      registerGrpcHealth(router, served.map((service) => service.typeName), {
        ready: async () => (await sharedCheck()).ok,
        changes,
        maxWatches: options.maxHealthWatches ?? DEFAULT_MAX_HEALTH_WATCHES,
      });
      if (options.reflection) registerReflection(router, [...served, Health]);
    },
  });

  app.get("/healthz", async () => ({ ok: true, service: name }));
  // Anyone who reaches the port may ask: which dependency fails, never its error text (it
  // can name addresses and users); the text goes to the log and to the authenticated
  // HealthService.Check.
  app.get("/readyz", async (request, reply) => {
    const status = await sharedCheck();
    const failing = status.dependencies.filter((d) => !d.ok);
    if (failing.length > 0) request.log.warn({ failing: failing.map((d) => ({ name: d.name, detail: d.detail })) }, "not ready");
    return reply.code(status.ok ? 200 : 503).send({ service: name, ok: status.ok, dependencies: status.dependencies.map((d) => ({ name: d.name, ok: d.ok, latencyMs: d.latencyMs })) });
  });
  if (options.metrics ?? true) serveMetrics(app);

  await options.configure?.(app);
  const address = await app.listen({ host: options.host, port: options.port });
  // httpolyglot's inner HTTP/1.1 server never listens itself, so Node never starts its
  // connection tracking (what closeIdleConnections and request timeouts use): start it.
  const innerHttp = (rawServer as unknown as { _httpServer?: HttpServer })._httpServer;
  innerHttp?.emit("listening");
  logger.info({ address }, `${name} listening`);

  return {
    app,
    url: options.tls ? address.replace(/^http:/, "https:") : address,
    async close() {
      shuttingDown = true;
      changes.emit("change");
      const closing = app.close();
      // HTTP/2 sessions and kept-alive HTTP/1.1 connections would hold the listener open:
      // GOAWAY lets calls in flight finish; idle HTTP/1.1 sockets can go now; whatever is
      // left once in-flight calls were aborted is cut.
      for (const session of sessions) session.close();
      // Closes kept-alive idle HTTP/1.1 sockets and stops the inner server's timers.
      innerHttp?.close(() => undefined);
      rawServer?.closeIdleConnections?.();
      const cut = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, (options.shutdownTimeoutMs ?? 10_000) + 1_000);
      try {
        await closing;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

/**
 * A handler that finishes after the caller's deadline (grpc-timeout / connect-timeout-ms)
 * answers DEADLINE_EXCEEDED, as gRPC servers do, rather than a late success no caller
 * waits for: handlers do not all watch the signal themselves.
 */
const honourDeadline: Interceptor = (next) => async (req) => {
  const response = await next(req);
  if (!response.stream && req.signal.aborted) throw ConnectError.from(req.signal.reason, Code.DeadlineExceeded);
  return response;
};

/**
 * The caller check (decision 0023): a valid service token for this RPC's service
 * (UNAUTHENTICATED otherwise), a grant for the method (PERMISSION_DENIED otherwise), and
 * for calls made for a user, the message's user_id must be that user.
 */
function checkCaller({ verifier, grants }: { verifier: TokenVerifier; grants: Grants }): Interceptor {
  return (next) => async (req) => {
    const service = req.service.typeName;
    if (openServices.has(service)) return next(req);
    const header = req.header.get(AUTHORIZATION_HEADER) ?? "";
    const token = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header)?.[1];
    if (!token) throw new ConnectError("This RPC needs a service token (authorization: Bearer)", Code.Unauthenticated);
    let caller;
    try {
      caller = await verifier.verify(token, service);
    } catch (error) {
      throw new ConnectError(`Invalid service token: ${(error as Error).message}`, Code.Unauthenticated);
    }
    if (!isGranted(grants, caller.service, service, req.method.name)) {
      throw new ConnectError(`${caller.service} may not call ${service}/${req.method.name}`, Code.PermissionDenied);
    }
    if (userBoundCallers.has(caller.service) || caller.userId) {
      const messageUser = req.stream ? undefined : (req.message as { userId?: unknown }).userId;
      if (typeof messageUser === "string" && messageUser !== "" && messageUser !== caller.userId) {
        throw new ConnectError("The request's user_id is not the user the call is made for", Code.PermissionDenied);
      }
    }
    setRequestUser(caller.userId);
    return next(req);
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
