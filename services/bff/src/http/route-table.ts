import type { FastifyInstance } from "fastify";
import { apiKeyMayUse } from "./api-key-scope.js";

export interface RouteEntry {
  method: string;
  /** The pattern as registered, e.g. /api/v1/transcriptions/:id. */
  url: string;
  /** Whether the session gate lets an API key call it (the document's `security` must say the same). */
  apiKey: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route the BFF serves, in registration order (the authorization matrix test walks it). */
    routeTable: RouteEntry[];
  }
}

/**
 * Records each route as it is registered. Install it before any route: Fastify tells
 * onRoute hooks only about routes added after them. A HEAD route next to a GET route of
 * the same path (Fastify derives one for every GET) is left out: it answers like the GET.
 */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate("routeTable", table);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD" && methods.length === 1 && table.some((r) => r.method === "GET" && r.url === route.url)) continue;
      table.push({ method, url: route.url, apiKey: apiKeyMayUse(route.url, route.config) });
    }
  });
}
