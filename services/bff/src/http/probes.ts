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
  app.get("/readyz", { logLevel: "warn", schema: { hide: true } }, async (_request, reply) => {
    const built = existsSync(indexFile);
    const web = built ? { name: "web", ok: true } : { name: "web", ok: false, detail: `no ${indexFile}` };
    return reply.code(built ? 200 : 503).send({ service: "bff", ok: built, dependencies: [web] });
  });
}
