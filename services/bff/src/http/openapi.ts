import fastifySwagger from "@fastify/swagger";
import type { FastifyInstance, RouteOptions } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { globalRegistry, type ZodType, z } from "zod";
import { exportFormatNames, namesText } from "../extension-points.js";
import { bodyIsOptional, strictRequestBodies } from "./request-body.js";

/**
 * The OpenAPI document is generated from the same zod schemas and route definitions the
 * routes validate with, so it cannot drift from what the server accepts and returns.
 * Every route must describe itself (assertDocumented); this module only fixes what the
 * generators leave wrong for standard tools and fills in the texts every route shares.
 */

/** Security of an operation: the shared names every route uses (docs/api.md). */
export const security = {
  /** Public: no credential. */
  none: [] as Array<Record<string, string[]>>,
  /** The browser session only (account, billing, support). */
  session: [{ sessionCookie: [] }] as Array<Record<string, string[]>>,
  /** The browser session, or an API key (the transcription, media and export routes). */
  sessionOrApiKey: [{ sessionCookie: [] }, { apiKeyBearer: [] }] as Array<Record<string, string[]>>,
};

export interface OpenApiSettings {
  /** The product's public URL: the document's server. */
  publicBaseUrl: string;
  /** better-auth's session cookie as the browser receives it. */
  sessionCookieName: string;
}

/** The session cookie's name: better-auth prefixes it with __Secure- outside development (services/auth/src/auth.ts). */
export function sessionCookieName(nodeEnv: string): string {
  return `${nodeEnv === "development" ? "" : "__Secure-"}better-auth.session_token`;
}

const OPERATION_ID = /^[a-z][a-zA-Z0-9]*$/;
const HTTP_METHODS = new Set(["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"]);

/** What a refusal means, by status: every error response of the API has the one ApiError body. */
const errorDescriptions: Record<string, string> = {
  "400": "The request is invalid; `error.message` says what to fix (`invalid_request` carries the field issues in `error.detail`; an unknown body field is `<path>: unknown field`)",
  "401": "No valid credential: not signed in, or the session or API key is invalid or expired (`unauthenticated`)",
  "402": "The free trial's minutes would be exceeded (`trial_limit_exceeded`, with used, limit, remaining and requested minutes in `error.detail`)",
  "403": "Refused (`permission_denied`), e.g. a cross-site request with the session cookie",
  "404": "Not found, or not the caller's (`not_found`)",
  "409": "Not possible in the resource's current state (`failed_precondition` or `already_exists`); `error.message` says why",
  "413": "The request body is too large",
  "422": "The file or its settings cannot be processed (e.g. unreadable media); `error.message` says why",
  "429": "Too many requests (`resource_exhausted`); retry after the seconds in `Retry-After`",
  "500": "An internal error (`internal`); nothing was changed",
  "503": "A service behind the API is unavailable (`unavailable`); retry shortly",
};

/** Descriptions of the bodiless answers. */
const emptyDescriptions: Record<string, string> = {
  "204": "Done; no body",
  "304": "Not modified: the resource still has the ETag sent in If-None-Match; no body",
};

interface ResponseNote {
  description: string | undefined;
  /** Bytes of these types instead of JSON (meta `mediaTypes` on the response schema). */
  mediaTypes: string[] | undefined;
  /** Response headers (meta `headers`: name → {description, schema}). */
  headers: Record<string, Json> | undefined;
}

/** Problems with a route's self-description; an undocumented route fails the BFF's start. */
export function documentationProblems(route: Pick<RouteOptions, "method" | "url" | "schema">): string[] {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (schema?.hide) return [];
  if (!schema) return ["no schema (document the route, or hide it with schema.hide and list it in the contract test)"];
  const problems: string[] = [];
  const operationId = schema.operationId;
  if (typeof operationId !== "string" || !OPERATION_ID.test(operationId)) problems.push("operationId (camelCase) is missing or malformed");
  if (typeof schema.summary !== "string" || schema.summary.length === 0) problems.push("summary is missing");
  if (!Array.isArray(schema.tags) || schema.tags.length === 0) problems.push("tags are missing");
  if (!Array.isArray(schema.security)) problems.push("security is missing (security.none for public routes)");
  const response = schema.response as Record<string, unknown> | undefined;
  if (!response || !Object.keys(response).some((status) => /^[23]\d\d$/.test(status))) problems.push("no success response schema");
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const method of methods) if (!HTTP_METHODS.has(method)) problems.push(`${method} is not an HTTP method OpenAPI knows`);
  return problems;
}

function noteOf(status: string, schema: unknown): ResponseNote {
  if (!schema || typeof schema !== "object") return { description: undefined, mediaTypes: undefined, headers: undefined };
  const zodSchema = (schema as { properties?: unknown }).properties ?? schema;
  const meta = globalRegistry.get(zodSchema as ZodType) as { id?: unknown; description?: unknown; mediaTypes?: unknown; headers?: unknown } | undefined;
  // A shared error component's own description says what the body is, not what this refusal means.
  const shared = meta?.id !== undefined && Number(status) >= 400;
  return {
    description: !shared && typeof meta?.description === "string" ? meta.description : undefined,
    mediaTypes: Array.isArray(meta?.mediaTypes) ? (meta.mediaTypes as string[]) : undefined,
    headers: meta?.headers && typeof meta.headers === "object" ? (meta.headers as Record<string, Json>) : undefined,
  };
}

export async function openApi(app: FastifyInstance, settings: OpenApiSettings): Promise<void> {
  const operationIds = new Map<string, string>();
  app.addHook("onRoute", (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== "HEAD");
    if (methods.length === 0) return;
    const where = `${methods.join(",")} ${route.url}`;
    const problems = documentationProblems(route);
    if (problems.length > 0) throw new Error(`Route ${where} is not documented for OpenAPI: ${problems.join("; ")}`);
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    if (operationId) {
      const other = operationIds.get(operationId);
      if (other && other !== where) throw new Error(`operationId ${operationId} is used by ${other} and ${where}`);
      operationIds.set(operationId, where);
    }
  });

  // Texts the transform learns per operation from the zod schemas, used when the document is assembled.
  const notes = new Map<string, Record<string, ResponseNote>>();
  // Operations a client may call without a body (@fastify/swagger marks every body required).
  const optionalBodies = new Set<string>();

  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Transcribe API",
        version: "1.0.0",
        description:
          "The product API: upload a recording, transcribe it with a speech model, read, correct and export the transcript. " +
          "JSON with snake_case field names; every refusal is `{\"error\": {\"code\", \"message\", \"detail\"?}}` with the HTTP status. " +
          "Request bodies of /api/v1 are closed: a field the schema does not name, at any depth, is refused with 400 `invalid_request` whose message starts with its path " +
          "(`settings.vocabularyy: unknown field`), and nothing is written; `null` for an optional field is the same as leaving it out. " +
          "The OpenAI-compatible /v1 routes ignore unknown fields, as OpenAI's API does. " +
          "Sign in with an e-mail link (`/auth/sign-in/magic-link`) and send the session cookie, or send an API key as `Authorization: Bearer tsk_…`. " +
          "Live transcription is a WebSocket, outside this document: `GET /api/v1/live` and the OpenAI Realtime API's transcription session at `GET /v1/realtime?intent=transcription`, " +
          "described in the repository's docs/api.md, section \"Live transcription\". " +
          "Human-readable reference: `/api/docs`.",
      },
      servers: [{ url: settings.publicBaseUrl, description: "This server" }],
      tags: [
        { name: "transcriptions", description: "Speech models, transcription jobs and their results" },
        { name: "files", description: "Uploads (declare, then PUT the bytes to the signed URL) and imported media" },
        { name: "exports", description: `Transcripts as ${namesText(exportFormatNames)}` },
        { name: "account", description: "The signed-in user" },
        { name: "auth", description: "Sign-in and sessions (better-auth, served under /auth)" },
        { name: "billing", description: "Free-tier usage, plans and Stripe" },
        { name: "blog", description: "The public blog" },
        { name: "support", description: "Support requests and the contact form" },
        { name: "images", description: "The image proxy for avatars" },
        { name: "meta", description: "Health and this document" },
      ],
      components: {
        securitySchemes: {
          sessionCookie: {
            type: "apiKey",
            in: "cookie",
            name: settings.sessionCookieName,
            description: "The session cookie better-auth sets on sign-in (magic link or password)",
          },
          apiKeyBearer: {
            type: "http",
            scheme: "bearer",
            description: "API key (see Developer API): `Authorization: Bearer tsk_…`",
          },
        },
      },
    },
    transform(input) {
      const result = jsonSchemaTransform(input);
      const schema = input.schema as { hide?: boolean; body?: unknown; response?: Record<string, unknown> } | undefined;
      const methods = Array.isArray(input.route.method) ? input.route.method : [input.route.method];
      if (!schema?.hide && bodyIsOptional(schema?.body)) for (const method of methods) optionalBodies.add(`${method.toLowerCase()} ${openApiPath(input.url)}`);
      if (!schema?.hide && schema?.response) {
        const statuses = Object.fromEntries(
          Object.entries(schema.response).map(([status, value]) => [status, noteOf(status, value)]),
        );
        for (const method of methods) notes.set(`${method.toLowerCase()} ${openApiPath(input.url)}`, statuses);
      }
      return result;
    },
    transformObject(input) {
      const document = jsonSchemaTransformObject(input) as OpenApiDocument;
      return finishDocument(document, notes, optionalBodies);
    },
  });

  app.get(
    "/api/v1/openapi.json",
    {
      config: { public: true },
      schema: {
        operationId: "getOpenApiDocument",
        summary: "This OpenAPI 3.1 document",
        tags: ["meta"],
        security: security.none,
        response: { 200: openApiDocumentSchema },
      },
    },
    async () => app.swagger(),
  );
  // Assembled once at start: an operation the document cannot describe stops the BFF here, not a client later.
  app.addHook("onReady", async () => {
    app.swagger();
  });
}

const openApiDocumentSchema = z
  .object({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }).loose(), paths: z.record(z.string(), z.unknown()) })
  .loose()
  .describe("The OpenAPI 3.1 document");

/** /api/v1/transcriptions/:id → /api/v1/transcriptions/{id} */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

type Json = Record<string, unknown>;
interface OpenApiDocument extends Json {
  paths: Record<string, Record<string, Json>>;
  components: { schemas?: Record<string, Json> } & Json;
}

/**
 * What the generators leave for us: zod's registry export puts a fragment `$id` on every
 * component (JSON Schema 2020-12 forbids it) and an input copy of every schema, used or
 * not; responses come out as "Default Response"; headers of 304 and 429 are not known.
 */
function finishDocument(document: OpenApiDocument, notes: Map<string, Record<string, ResponseNote>>, optionalBodies: Set<string>): OpenApiDocument {
  const schemas = { ...(document.components.schemas ?? {}) };
  for (const [name, schema] of Object.entries(schemas)) {
    const { $id: _id, $schema: _schema, ...rest } = schema;
    schemas[name] = rest;
  }
  // Before the input copies are merged with their output side: the rule is about requests only.
  strictRequestBodies(document.paths, schemas);
  // fastify-type-provider-zod names the input side of a schema `<name>Input`; where it is
  // the same as the output side, one component is enough.
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith("Input")) continue;
    const output = name.slice(0, -"Input".length);
    const text = (s: Json | undefined) => JSON.stringify(s).replaceAll(`#/components/schemas/${name}"`, `#/components/schemas/${output}"`);
    if (schemas[output] && text(schemas[name]) === JSON.stringify(schemas[output])) renames.set(name, output);
  }
  let body = JSON.stringify({ ...document, components: { ...document.components, schemas } });
  for (const [from, to] of renames) body = body.replaceAll(`"#/components/schemas/${from}"`, `"#/components/schemas/${to}"`);
  const finished = JSON.parse(body) as OpenApiDocument;
  for (const from of renames.keys()) delete finished.components.schemas![from];

  const problems: string[] = [];
  for (const [path, item] of Object.entries(finished.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      const note = notes.get(`${method} ${path}`) ?? {};
      if (optionalBodies.has(`${method} ${path}`) && operation.requestBody) (operation.requestBody as Json).required = false;
      const conditional = "304" in responses;
      for (const [status, response] of Object.entries(responses)) {
        const content = response.content as Record<string, { schema?: Json }> | undefined;
        const isError = Number(status) >= 400;
        for (const media of Object.values(content ?? {})) {
          if (!media.schema) continue;
          // Meta keys that are about the response, not the body.
          delete media.schema.headers;
          delete media.schema.mediaTypes;
        }
        const described = note[status]?.description ?? (isError ? errorDescriptions[status] : undefined) ?? emptyDescriptions[status];
        if (described) response.description = described;
        if (response.description === "Default Response") problems.push(`${method.toUpperCase()} ${path} ${status}: describe the response schema (.describe or .meta({description}))`);
        if (status === "204" || status === "304") delete response.content;
        const mediaTypes = note[status]?.mediaTypes;
        if (mediaTypes) response.content = Object.fromEntries(mediaTypes.map((type) => [type, { schema: type.startsWith("text/") ? { type: "string" } : { type: "string", format: "binary" } }]));
        const headers: Record<string, Json> = { ...(note[status]?.headers ?? {}) };
        if (status === "429") headers["Retry-After"] = { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 0 } };
        if (conditional && (status === "200" || status === "304")) {
          headers.ETag = { description: "Send it back in If-None-Match to get 304 while nothing changed", schema: { type: "string" } };
        }
        if (Object.keys(headers).length > 0) response.headers = { ...(response.headers as Json | undefined), ...headers };
      }
      if (conditional) {
        const parameters = (operation.parameters ?? []) as Json[];
        operation.parameters = [
          ...parameters,
          { in: "header", name: "If-None-Match", required: false, description: "The ETag of the last answer: 304 while nothing changed", schema: { type: "string" } },
        ];
      }
    }
  }
  if (problems.length > 0) throw new Error(`The OpenAPI document is incomplete:\n${problems.join("\n")}`);

  // A tag a route uses but the list above lacks is still declared (without a description), so reference pages group it.
  const tags = (finished.tags ?? []) as Array<{ name: string }>;
  for (const item of Object.values(finished.paths)) {
    for (const operation of Object.values(item)) {
      for (const tag of (operation.tags ?? []) as string[]) if (!tags.some((t) => t.name === tag)) tags.push({ name: tag });
    }
  }
  finished.tags = tags;

  // Components nothing refers to any more (the unused input copies) are noise for generators.
  const text = JSON.stringify({ ...finished, components: { ...finished.components, schemas: {} } });
  const used = new Set<string>();
  const visit = (source: string) => {
    for (const match of source.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1]!;
      if (used.has(name)) continue;
      used.add(name);
      visit(JSON.stringify(finished.components.schemas![name] ?? {}));
    }
  };
  visit(text);
  finished.components.schemas = Object.fromEntries(Object.entries(finished.components.schemas!).filter(([name]) => used.has(name)));
  // A request-only schema keeps its own name (UploadRequest, not UploadRequestInput): generated clients name classes after it.
  let result = JSON.stringify(finished);
  for (const name of Object.keys(finished.components.schemas)) {
    const base = name.slice(0, -"Input".length);
    if (!name.endsWith("Input") || base in finished.components.schemas) continue;
    result = result.replaceAll(`"#/components/schemas/${name}"`, `"#/components/schemas/${base}"`).replace(`"${name}":{`, `"${base}":{`);
  }
  return JSON.parse(result) as OpenApiDocument;
}
