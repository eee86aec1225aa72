import { trace } from "@opentelemetry/api";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { z } from "zod";
import type { Logger } from "../logger.js";
import { httpRequestDuration, metricsContentType, metricsText } from "./metrics.js";

/**
 * Times every request of a Fastify app into http_server_request_duration_seconds, labelled
 * with the route pattern (never the raw URL: ids in paths would make a series per id),
 * and names the request's span after the route, which the http instrumentation cannot see.
 * Register right after creating the app so that every route is covered.
 */
export function observeHttpRequests(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    const route = request.routeOptions.url;
    const span = trace.getActiveSpan();
    if (span && route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute("http.route", route);
    }
  });
  app.addHook("onResponse", async (request, reply) => {
    httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? "unmatched", status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

/** GET /metrics: Prometheus text. Scrapes come every few seconds, so they log only problems. */
export function serveMetrics(app: FastifyInstance): void {
  app.get("/metrics", { logLevel: "warn" }, async (_request, reply) => {
    return reply.type(metricsContentType).send(await metricsText());
  });
}

/**
 * METRICS_PORT, for a process whose main port faces the internet (the BFF): /metrics is
 * served on that port only, and not at all while it is unset.
 */
export const metricsPortConfigSchema = z.object({
  METRICS_PORT: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.coerce.number().int().min(1).max(65535).optional(),
  ),
});

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * /metrics on a port of its own, for a process whose main port faces the internet (the
 * BFF): the scrape port is then reachable only where the deployment exposes it.
 */
export async function startMetricsServer(options: { host: string; port: number; logger: Logger }): Promise<MetricsServer> {
  const app = Fastify({ loggerInstance: options.logger.child({ server: "metrics" }) as FastifyBaseLogger });
  serveMetrics(app);
  const url = await app.listen({ host: options.host, port: options.port });
  options.logger.info({ url: `${url}/metrics` }, "metrics served");
  return { url, close: () => app.close() };
}
