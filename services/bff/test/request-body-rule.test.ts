import Fastify from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { installErrorHandler } from "../src/http/api-error.js";
import { openApi, security } from "../src/http/openapi.js";
import { requestBodyRule } from "../src/http/request-body.js";
import { servedDocument } from "./openapi/document.js";

/**
 * The request-body rule of /api/v1 (decision 0034) on routes of its own, through Fastify's
 * real validation and the real OpenAPI generation: unknown fields at any depth are refused
 * naming their path, null for an optional field is the same as leaving it out, and the
 * OpenAI-compatible /v1 prefix is not under the rule.
 */
// Each prefix has schemas of its own: one component cannot be closed for /api/v1 and open for /v1.
const bodyFor = (name: string) => {
  const settings = z
    .object({
      language: z.string(),
      model: z.string().optional(),
      translate: z.boolean().default(false),
      note: z.string().nullish(),
    })
    .meta({ id: `${name}Settings` });
  return z
    .object({
      name: z.string(),
      settings,
      items: z.array(z.object({ id: z.number().int(), label: z.string().optional() })).optional(),
      target: z.union([z.object({ kind: z.literal("url"), url: z.string() }), z.object({ kind: z.literal("file"), file_id: z.string() })]).optional(),
      tags: z.record(z.string(), z.object({ on: z.boolean() })).optional(),
    })
    .meta({ id: name });
};

describe("the request-body rule", () => {
  const app = Fastify().withTypeProvider<ZodTypeProvider>();
  const seen: unknown[] = [];

  beforeAll(async () => {
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    installErrorHandler(app);
    await openApi(app, { publicBaseUrl: "http://localhost:8080", sessionCookieName: "better-auth.session_token" });
    requestBodyRule(app);
    const echo = z.object({ ok: z.boolean() }).describe("Seen");
    const route = (url: string, operationId: string) =>
      app.post(url, { schema: { operationId, summary: "Echo", tags: ["meta"], security: security.none, body: bodyFor(`${operationId[0]!.toUpperCase()}${operationId.slice(1)}Body`), response: { 200: echo } } }, async (request) => {
        seen.push(request.body);
        return { ok: true };
      });
    route("/api/v1/rule", "ruleTest");
    route("/v1/rule", "ruleTestOpenAi");
    const options = z.object({ note: z.string().optional() }).meta({ id: "RuleOptions" });
    app.post("/api/v1/rule/optional", { schema: { operationId: "ruleOptional", summary: "Echo", tags: ["meta"], security: security.none, body: options.optional(), response: { 200: echo } } }, async (request) => {
      seen.push(request.body);
      return { ok: true };
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const post = async (url: string, payload: unknown) => {
    seen.length = 0;
    const response = await app.inject({ method: "POST", url, payload: payload as object });
    return { status: response.statusCode, body: response.json() as { error?: { code: string; message: string; detail?: { issues: Array<{ path: string }> } } }, seen: seen[0] };
  };
  const valid = { name: "a", settings: { language: "en" } };

  it("refuses an unknown field at the top, nested, in an array item and in a union member, naming its path; the handler never runs", async () => {
    for (const [payload, path] of [
      [{ ...valid, nmae: "typo" }, "nmae"],
      [{ ...valid, settings: { language: "en", vocabularyy: ["x"] } }, "settings.vocabularyy"],
      [{ ...valid, items: [{ id: 1 }, { id: 2, lable: "x" }] }, "items.1.lable"],
      [{ ...valid, target: { kind: "file", file_id: "f", url: "u" } }, "target.url"],
      [{ ...valid, tags: { a: { on: true, off: false } } }, "tags.a.off"],
    ] as const) {
      const answer = await post("/api/v1/rule", payload);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toMatchObject({ code: "invalid_request", message: `${path}: unknown field` });
      expect(answer.seen, "the handler did not run").toBeUndefined();
    }
    const several = await post("/api/v1/rule", { x: 1, name: "a", settings: { language: "en", y: 2 } });
    expect(several.body.error?.detail?.issues.map((i) => i.path)).toEqual(["x", "settings.y"]);
  });

  it("takes null for an optional field as leaving it out (a default applies); null for a required field is still refused", async () => {
    const answer = await post("/api/v1/rule", { name: "a", settings: { language: "en", model: null, translate: null }, items: null, target: null, tags: null });
    expect(answer.status).toBe(200);
    expect(answer.seen).toEqual({ name: "a", settings: { language: "en", translate: false } });
    // A field whose schema takes null itself keeps it.
    expect((await post("/api/v1/rule", { name: "a", settings: { language: "en", note: null } })).seen).toEqual({ name: "a", settings: { language: "en", translate: false, note: null } });
    const required = await post("/api/v1/rule", { name: "a", settings: { language: null } });
    expect(required.status).toBe(400);
    expect(required.body.error?.message).toMatch(/^settings\.language: /);
    expect((await post("/api/v1/rule", { name: "a", settings: null })).status).toBe(400);
  });

  it("takes no body at all as an empty one where the route's body is optional, and the document says it is optional", async () => {
    for (const headers of [{}, { "content-type": "application/json", "content-length": "0" }] as Array<Record<string, string>>) {
      seen.length = 0;
      const response = await app.inject({ method: "POST", url: "/api/v1/rule/optional", headers });
      if (headers["content-type"]) {
        // An empty JSON body is malformed JSON: Fastify's own 400, not a 500.
        expect(response.statusCode).toBe(400);
        continue;
      }
      expect(response.statusCode, response.body).toBe(200);
      expect(seen[0]).toEqual({});
    }
    expect((await post("/api/v1/rule/optional", { note: "x" })).seen).toEqual({ note: "x" });
    expect((await post("/api/v1/rule/optional", { nope: 1 })).status).toBe(400);
    // A route whose body is required still refuses a missing one.
    expect((await app.inject({ method: "POST", url: "/api/v1/rule" })).statusCode).toBe(400);
    const document = app.swagger() as unknown as { paths: Record<string, { post: { requestBody: { required?: boolean } } }> };
    expect(document.paths["/api/v1/rule/optional"]!.post.requestBody.required).toBe(false);
    expect(document.paths["/api/v1/rule"]!.post.requestBody.required).toBe(true);
  });

  it("leaves the OpenAI-compatible /v1 routes lenient: unknown fields are dropped, not refused", async () => {
    const answer = await post("/v1/rule", { ...valid, stream: false, settings: { language: "en", extra: 1 } });
    expect(answer.status).toBe(200);
    expect(answer.seen).toEqual({ name: "a", settings: { language: "en", translate: false } });
  });

  it("states the rule in the OpenAPI document: closed objects, null allowed for optional properties, /v1 untouched", async () => {
    const document = app.swagger() as unknown as { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Record<string, unknown> }> } } }>; components: { schemas: Record<string, Record<string, unknown>> } };
    const schemas = document.components.schemas;
    const ref = (path: string) => String(document.paths[path]!.post.requestBody.content["application/json"]!.schema.$ref).replace("#/components/schemas/", "");
    const strict = schemas[ref("/api/v1/rule")]!;
    const properties = strict.properties as Record<string, Record<string, unknown>>;
    expect(strict.additionalProperties).toBe(false);
    expect(properties.items).toMatchObject({ type: ["array", "null"], items: { additionalProperties: false, properties: { label: { type: ["string", "null"] } } } });
    expect(properties.target!.oneOf).toEqual([expect.objectContaining({ anyOf: expect.any(Array) }), { type: "null" }]);
    const nested = schemas[String(properties.settings!.$ref).replace("#/components/schemas/", "")]!;
    expect(nested.additionalProperties).toBe(false);
    expect((nested.properties as Record<string, unknown>).language).toEqual({ type: "string" });
    expect((nested.properties as Record<string, unknown>).model).toEqual({ type: ["string", "null"] });
    // The /v1 route's body is the schema as zod wrote it: open, no null added.
    const lenient = schemas[ref("/v1/rule")]!;
    expect(lenient).not.toBe(strict);
    expect(lenient.additionalProperties).toBeUndefined();
    expect((lenient.properties as Record<string, Record<string, unknown>>).items!.type).toBe("array");
  });
});

describe("the served document", () => {
  it("closes every object of every /api/v1 request body and lets each optional JSON property be null; /v1 and /auth bodies stay open", async () => {
    const { document } = await servedDocument();
    const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
    const objectsOf = (schema: unknown, seen = new Set<unknown>()): Array<Record<string, unknown>> => {
      if (!schema || typeof schema !== "object" || seen.has(schema)) return [];
      seen.add(schema);
      const node = schema as Record<string, unknown>;
      const ref = typeof node.$ref === "string" ? schemas[node.$ref.replace("#/components/schemas/", "")] : undefined;
      const children = [ref, node.items, ...Object.values((node.properties as object | undefined) ?? {}), ...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])];
      return [...(node.type === "object" || node.properties ? [node] : []), ...children.flatMap((child) => objectsOf(child, seen))];
    };
    const nullable = (p: Record<string, unknown>) =>
      (Array.isArray(p.type) && p.type.includes("null")) || [...((p.anyOf as Array<Record<string, unknown>>) ?? []), ...((p.oneOf as Array<Record<string, unknown>>) ?? [])].some((v) => v.type === "null") || Object.keys(p).every((k) => k === "description");
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
          for (const object of objectsOf(media.schema)) {
            const where = `${method.toUpperCase()} ${path} ${mediaType}`;
            if (!path.startsWith("/api/v1/")) {
              expect(object.additionalProperties, where).not.toBe(false);
              continue;
            }
            checked += 1;
            expect(object.additionalProperties, where).toBe(false);
            if (mediaType !== "application/json") continue;
            const required = new Set((object.required as string[] | undefined) ?? []);
            for (const [name, property] of Object.entries((object.properties as Record<string, Record<string, unknown>>) ?? {})) {
              if (!required.has(name)) expect(nullable(property), `${where} ${name}`).toBe(true);
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
