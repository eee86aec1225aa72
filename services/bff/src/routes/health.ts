import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { security } from "../http/openapi.js";
import type { Client } from "@connectrpc/connect";
import { Provider, type TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { HealthClients } from "../upstreams.js";

const serviceStatusSchema = z.object({
  name: z.string(),
  ok: z.boolean(),
  status: z
    .enum(["ok", "degraded", "down"])
    .describe("degraded: the service answers but part of its work cannot run yet (detail says why)"),
  latency_ms: z.number().nonnegative(),
  detail: z.string().optional(),
});

export const healthResponseSchema = z
  .object({
    status: z.enum(["ok", "degraded", "unavailable"]),
    services: z.array(serviceStatusSchema),
  })
  .meta({ id: "Health", description: "The BFF and every service behind it, each with ok, latency_ms and what is wrong" });

/** Whether the default speech model can run now (the worker's engine, its weights), and why not. */
export type EngineCheck = () => Promise<{ ok: true } | { ok: false; reason: string } | undefined>;

/** The worker is degraded while its engine is prepared or cannot run: the default model's availability says so. */
export function engineCheckFrom(client: Client<typeof TranscriptionService>, timeoutMs: number): EngineCheck {
  return async () => {
    try {
      const { models } = await client.listModels({}, { timeoutMs });
      const local = models.filter((m) => m.provider === Provider.LOCAL);
      const preferred = local.find((m) => m.id === defaultModelId) ?? local[0];
      if (!preferred) return undefined;
      return preferred.available ? { ok: true } : { ok: false, reason: `${preferred.id}: ${preferred.reason || "not available"}` };
    } catch {
      // The API itself is down: its own entry says so.
      return undefined;
    }
  };
}

const defaultModelId = "whisper-base";

/**
 * GET /api/v1/health: the BFF and every service it depends on. A service counts as ok
 * only when it answers its HealthService over Connect and its own dependencies are up.
 * Any service down → 503, so a load balancer or the launcher's test sees it at once. The
 * worker is "degraded" (200, status "degraded", with the reason) while the default local
 * model cannot run: engine or weights being prepared, or missing (decision 0019).
 */
export const healthRoutes: FastifyPluginAsyncZod<{ clients: HealthClients; engine?: EngineCheck }> = async (app, { clients, engine }) => {
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
      const engineState = engine ? engine() : Promise.resolve(undefined);
      const services = await Promise.all(
        clients.map(async ({ name, client }) => {
          const started = performance.now();
          try {
            const result = await client.check({});
            const failing = result.dependencies.filter((d) => !d.ok).map((d) => `${d.name}: ${d.detail}`);
            const latency_ms = round(performance.now() - started);
            if (!result.ok) return { name, ok: false, status: "down" as const, latency_ms, detail: failing.join("; ") || "not ready" };
            const state = name === "transcription-worker" ? await engineState : undefined;
            if (state && !state.ok) return { name, ok: false, status: "degraded" as const, latency_ms, detail: state.reason };
            return { name, ok: true, status: "ok" as const, latency_ms };
          } catch (error) {
            const detail = error instanceof Error ? error.message : String(error);
            return { name, ok: false, status: "down" as const, latency_ms: round(performance.now() - started), detail };
          }
        }),
      );
      const all = [{ name: "bff", ok: true, status: "ok" as const, latency_ms: 0 }, ...services];
      const down = all.some((s) => s.status === "down");
      const degraded = all.some((s) => s.status === "degraded");
      // Degraded answers 200: the product serves (sign-in, uploads, cloud models); 503 means a service is down.
      return reply.code(down ? 503 : 200).send({ status: down ? "unavailable" : degraded ? "degraded" : "ok", services: all });
    },
  );
};

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
