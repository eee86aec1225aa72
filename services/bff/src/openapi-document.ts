import { createLogger, loadConfig } from "@transcribe/platform";
import { buildBff } from "./app.js";
import { bffConfigSchema } from "./config.js";
import type { RouteEntry } from "./http/route-table.js";

export type OpenApiDocument = {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, Record<string, unknown>> };
};
export interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

/**
 * The document as the BFF serves it, and the BFF's route table, from one buildBff (no
 * services needed). Its readers: the contract tests, the released snapshot
 * (`npm run openapi:release`) and the SPA's generated client (`npm run api:generate`,
 * decision 0035). The default configuration unless `env` says otherwise, so only the API's
 * own changes make two documents differ.
 */
export async function servedDocument(env: Record<string, string> = {}): Promise<{ document: OpenApiDocument; routes: RouteEntry[] }> {
  const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", ...env }), createLogger("openapi-document", "silent"));
  try {
    await app.ready();
    const response = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    if (response.statusCode !== 200) throw new Error(`openapi.json: ${response.statusCode} ${response.body.slice(0, 300)}`);
    return { document: response.json() as OpenApiDocument, routes: [...app.routeTable] };
  } finally {
    await app.close();
  }
}
