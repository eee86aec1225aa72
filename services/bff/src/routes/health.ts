import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { security } from "../http/openapi.js";
import type { HealthClients } from "../upstreams.js";

const serviceStatusSchema = z.object({
  name: z.string(),
  ok: z.boolean(),
  latency_ms: z.number().nonnegative(),
  detail: z.string().optional(),
});

export const healthResponseSchema = z
  .object({
    status: z.enum(["ok", "unavailable"]),
    services: z.array(serviceStatusSchema),
  })
  .meta({ id: "Health", description: "The BFF and every service behind it, each with ok, latency_ms and what is wrong" });

/**
 * GET /api/v1/health: the BFF and every service it depends on. A service counts as ok
 * only when it answers its HealthService over Connect and its own dependencies are up.
 * Any service down → 503, so a load balancer or the launcher's test sees it at once.
 */
export const healthRoutes: FastifyPluginAsyncZod<{ clients: HealthClients }> = async (app, { clients }) => {
  app.get(
    "/api/v1/health",
    {
      schema: {
        tags: ["meta"],
        operationId: "getHealth",
        summary: "Status of the BFF and every service behind it",
        security: security.none,
        response: { 200: healthResponseSchema, 503: healthResponseSchema.describe("At least one service is down (named, with the reason)") },
      },
    },
    async (_request, reply) => {
      const services = await Promise.all(
        clients.map(async ({ name, client }) => {
          const started = performance.now();
          try {
            const result = await client.check({});
            const failing = result.dependencies.filter((d) => !d.ok).map((d) => `${d.name}: ${d.detail}`);
            const latency_ms = round(performance.now() - started);
            return result.ok
              ? { name, ok: true, latency_ms }
              : { name, ok: false, latency_ms, detail: failing.join("; ") || "not ready" };
          } catch (error) {
            const detail = error instanceof Error ? error.message : String(error);
            return { name, ok: false, latency_ms: round(performance.now() - started), detail };
          }
        }),
      );
      const all = [{ name: "bff", ok: true, latency_ms: 0 }, ...services];
      const ok = all.every((s) => s.ok);
      return reply.code(ok ? 200 : 503).send({ status: ok ? "ok" : "unavailable", services: all });
    },
  );
};

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
