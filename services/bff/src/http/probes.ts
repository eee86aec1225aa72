import { existsSync } from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";

/**
 * GET /healthz (the process answers) and GET /readyz (this replica can serve: the web app
 * is built), the paths every service's orchestrator probes. Readiness leaves out the
 * services behind the BFF on purpose: one slow service must not take every BFF replica
 * out of the load balancer; GET /api/v1/health reports them. While the server closes,
 * Fastify answers 503, so a stopping replica leaves the rotation.
 */
export function probeRoutes(app: FastifyInstance, options: { distDir: string }): void {
  const indexFile = path.join(options.distDir, "index.html");
  app.get("/healthz", { logLevel: "warn", schema: { hide: true } }, async () => ({ ok: true, service: "bff" }));
  // Public like every path of the BFF: what is missing goes to the log, not to the answer.
  app.get("/readyz", { logLevel: "warn", schema: { hide: true } }, async (request, reply) => {
    const built = existsSync(indexFile);
    if (!built) request.log.warn({ missing: indexFile }, "not ready: the web app is not built");
    return reply.code(built ? 200 : 503).send({ service: "bff", ok: built, dependencies: [{ name: "web", ok: built }] });
  });
}
