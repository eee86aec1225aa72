import { createLogger, loadConfig } from "@transcribe/platform";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { createAuth } from "@transcribe/auth/auth";
import { authConfigSchema } from "@transcribe/auth/config";
import { buildBff } from "../../src/app.js";
import { bffConfigSchema } from "../../src/config.js";
import type { RouteEntry } from "../../src/http/route-table.js";

const logger = createLogger("security-route-tables", "silent");

/** The BFF's own route table (as registered by buildBff), for paths under /api and /auth. */
export async function bffRoutes(): Promise<RouteEntry[]> {
  const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent" }), logger);
  await app.ready();
  const routes = app.routeTable.filter((r) => r.url.startsWith("/api/") || r.url.startsWith("/v1/") || r.url === "/auth" || r.url.startsWith("/auth/"));
  await app.close();
  return routes;
}

/**
 * The endpoints better-auth serves under /auth with the product's configuration (the
 * auth service's own authOptions), by path. Building it touches no database.
 */
export async function authEndpoints(): Promise<Array<{ path: string; methods: string[]; body?: unknown; query?: unknown }>> {
  const pool = new pg.Pool({ connectionString: "postgres://unused@127.0.0.1:1/unused", max: 1 });
  const config = { ...loadConfig(authConfigSchema, {}), NODE_ENV: "test" as const };
  const auth = createAuth({
    config,
    secret: "route-table-secret-0123456789-0123456789",
    db: new Kysely<any>({ dialect: new PostgresDialect({ pool }) }),
    mailer: { send: async () => {}, sendMagicLink: async () => {} } as never,
    logger,
  });
  const endpoints = Object.values(auth.api as Record<string, { path?: string; options?: { method?: string | string[]; body?: unknown; query?: unknown } }>)
    // Endpoints without a path are server-only (set-password): not reachable over HTTP.
    .filter((endpoint) => typeof endpoint.path === "string")
    .map((endpoint) => {
      const method = endpoint.options?.method ?? "GET";
      // Its own zod schemas of the body and query (the OpenAPI contract test compares the documented ones).
      return { path: endpoint.path!, methods: Array.isArray(method) ? method : [method], body: endpoint.options?.body, query: endpoint.options?.query };
    });
  await pool.end();
  return endpoints;
}
