import { readFileSync } from "node:fs";
import { copyFile, readFile } from "node:fs/promises";
import path from "node:path";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { documentedAuthEndpoints } from "../../src/http/auth-endpoints.js";
import { openApi, openApiPath } from "../../src/http/openapi.js";
import type { RouteEntry } from "../../src/http/route-table.js";
import { authEndpoints } from "../security/route-tables.js";
import { documentFile, oasdiff, type OpenApiDocument, type Operation, pythonTools, repoRoot, run, servedDocument, toolPresent } from "./document.js";

/**
 * decision 0025: the served OpenAPI document is valid for the standard tools, complete, and
 * true to the routes the BFF registers; a breaking change against the last released
 * document (docs/openapi/released.json) is reported.
 */

/** Routes the BFF serves that are deliberately not API operations, with why. `*` = every method. */
const undocumented: Record<string, string> = {
  "GET /api/v1/storage/*": "signed upload and audio URLs, handed out by createUpload/get…AudioUrl (S3 in a cluster); the signature authorizes",
  "HEAD /api/v1/storage/*": "as above",
  "PUT /api/v1/storage/*": "the upload PUT to upload_url, described in createUpload",
  "GET /api/v1/storage/exports/*": "signed export downloads (download_url of exportTranscription)",
  "HEAD /api/v1/storage/exports/*": "as above",
  "* /auth": "better-auth's catch-all; the endpoints integrators call are documented one by one",
  "* /auth/*": "as above",
  "GET /api/docs/redoc.js": "the reference page's scripts",
  "GET /api/docs/init.js": "the reference page's scripts",
  "GET /api/v1/live": "a WebSocket (live transcription), described in docs/api.md, which the document's description links to",
  "GET /v1/realtime": "a WebSocket (OpenAI Realtime API transcription sessions), described in docs/api.md",
  "GET /healthz": "Kubernetes probe",
  "GET /readyz": "Kubernetes probe",
};

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const operationsOf = (document: OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([route, item]) => Object.entries(item).map(([method, operation]) => ({ route, method, operation: operation as Operation })));

describe("the served OpenAPI document", () => {
  const publicBaseUrl = "https://transcribe.example.org";
  let document: OpenApiDocument;
  let routes: RouteEntry[];

  beforeAll(async () => {
    ({ document, routes } = await servedDocument({ PUBLIC_BASE_URL: publicBaseUrl, NODE_ENV: "production" }));
  });

  it("passes redocly lint with the recommended rules: 0 errors", { timeout: 120_000 }, async () => {
    const { file, remove } = await documentFile(document);
    try {
      const output = await run(path.join(repoRoot, "node_modules/.bin/redocly"), ["lint", "--extends", "recommended", "--format", "json", file], { maxBuffer: 64 * 1024 * 1024 }).catch(
        (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? "", stderr: error.stderr ?? "" }),
      );
      const report = JSON.parse(output.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }> };
      const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
      expect(errors).toEqual([]);
      expect(report.totals.errors).toBe(0);
      // The warnings left are the recommended set's taste (no license, no 4xx on public reads); none about operations' descriptions.
      expect(report.problems.filter((p) => ["operation-operationId", "operation-summary", "operation-description", "security-defined", "no-path-trailing-slash", "no-invalid-media-type-examples"].includes(p.ruleId))).toEqual([]);
    } finally {
      await remove();
    }
  });

  it.skipIf(!toolPresent(path.join(pythonTools, "openapi-spec-validator")))("passes openapi-spec-validator", { timeout: 120_000 }, async () => {
    const { file, remove } = await documentFile(document);
    try {
      const { stdout } = await run(path.join(pythonTools, "openapi-spec-validator"), [file]).catch((error: { stdout?: string; stderr?: string }) => {
        throw new Error(`openapi-spec-validator failed:\n${error.stdout}\n${error.stderr}`);
      });
      expect(stdout).toContain("OK");
    } finally {
      await remove();
    }
  });

  it("documents every route the BFF registers, and no route it does not have", () => {
    const documented = new Set(operationsOf(document).map(({ route, method }) => `${method.toUpperCase()} ${route}`));
    const hidden: string[] = [];
    const missing: string[] = [];
    for (const route of routes) {
      const key = `${route.method} ${route.url}`;
      if (undocumented[key] || undocumented[`* ${route.url}`]) {
        hidden.push(undocumented[key] ? key : `* ${route.url}`);
        continue;
      }
      if (!documented.delete(`${route.method} ${openApiPath(route.url)}`)) missing.push(key);
    }
    expect(missing, "routes missing from the document").toEqual([]);
    expect([...documented], "documented operations without a route").toEqual([]);
    expect(Object.keys(undocumented).filter((key) => !hidden.includes(key)), "exemptions for routes that are gone").toEqual([]);
  });

  it("gives every operation a unique camelCase operationId, a summary, tags, its security and every path parameter", () => {
    const ids = new Set<string>();
    const schemes = Object.keys(document.components.securitySchemes);
    for (const { route, method, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${route}`;
      expect(HTTP_METHODS, where).toContain(method);
      expect(operation.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(ids.has(operation.operationId!), `${where}: ${operation.operationId} twice`).toBe(false);
      ids.add(operation.operationId!);
      expect(operation.summary, where).toBeTruthy();
      expect(operation.tags?.length, where).toBeGreaterThan(0);
      expect(Array.isArray(operation.security), `${where}: security (or [] when public)`).toBe(true);
      for (const requirement of operation.security!) for (const scheme of Object.keys(requirement)) expect(schemes, where).toContain(scheme);
      const pathParameters = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(pathParameters.every((name) => !/[*]/.test(name!)), `${where}: a wildcard parameter`).toBe(true);
      expect(
        operation.parameters?.filter((p) => p.in === "path" && p.required).map((p) => p.name).sort() ?? [],
        `${where}: path parameters`,
      ).toEqual(pathParameters.sort());
    }
    expect(ids.size).toBeGreaterThanOrEqual(40);
  });

  it("describes every response, errors in the one error shape, 429 with Retry-After, 304 with the ETag", () => {
    for (const { route, method, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${route}`;
      expect(Object.keys(operation.responses).some((status) => /^[23]/.test(status)), `${where}: a success response`).toBe(true);
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${where} ${status}`).toBeTruthy();
        expect(response.description, `${where} ${status}`).not.toBe("Default Response");
        const schema = response.content?.["application/json"]?.schema;
        // Health answers its 503 with the health report itself (which service is down).
        if (Number(status) >= 400 && route.startsWith("/api/") && route !== "/api/v1/health") expect(schema?.$ref, `${where} ${status}: the ApiError shape`).toBe("#/components/schemas/ApiError");
        if (status === "429") expect(response.headers, `${where} 429`).toHaveProperty("Retry-After");
        if (status === "304") {
          expect(response.headers, `${where} 304`).toHaveProperty("ETag");
          expect(response.content, `${where} 304 has no body`).toBeUndefined();
          expect(operation.parameters?.some((p) => p.in === "header" && p.name === "If-None-Match"), where).toBe(true);
        }
      }
    }
    expect(operationsOf(document).find((o) => o.operation.operationId === "listTranscriptions")?.operation.responses).toHaveProperty("304");
  });

  it("has no fragment $id (JSON Schema 2020-12 forbids one) and no unused component", () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('"$id"');
    const withoutComponents = JSON.stringify({ ...document, components: { ...document.components, schemas: {} } });
    for (const name of Object.keys(document.components.schemas)) {
      const ref = `"#/components/schemas/${name}"`;
      const elsewhere = withoutComponents.includes(ref) || Object.entries(document.components.schemas).some(([other, schema]) => other !== name && JSON.stringify(schema).includes(ref));
      expect(elsewhere, `${name} is used`).toBe(true);
    }
  });

  it("names its server and both ways to authenticate; an operation lists the API key exactly where the session gate lets a key through", () => {
    expect(document.servers?.[0]?.url).toBe(publicBaseUrl);
    expect(document.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "__Secure-better-auth.session_token" });
    expect(document.components.securitySchemes.apiKeyBearer).toMatchObject({ type: "http", scheme: "bearer" });
    const byOperation = new Map(routes.map((route) => [`${route.method.toLowerCase()} ${openApiPath(route.url)}`, route]));
    const disagree: string[] = [];
    for (const { route, method, operation } of operationsOf(document)) {
      const gate = byOperation.get(`${method} ${route}`)?.apiKey;
      const listed = (operation.security ?? []).some((scheme) => "apiKeyBearer" in scheme);
      if (gate !== undefined && listed !== gate) disagree.push(`${method.toUpperCase()} ${route}: the document says ${listed ? "" : "no "}API key, the gate ${gate ? "lets one through" : "refuses it"}`);
      // Model administration stays session only (docs/security.md); the transcript, file and export routes take a key.
      const tag = operation.tags?.[0];
      if ((tag === "transcriptions" || tag === "files" || tag === "exports") && !["downloadModel", "removeModel"].includes(operation.operationId ?? "")) {
        expect(operation.security, `${method} ${route}`).toEqual([{ sessionCookie: [] }, { apiKeyBearer: [] }]);
      }
    }
    expect(disagree).toEqual([]);
    const detail = document.components.schemas.TranscriptionDetail as { examples?: Array<{ result: { segments: Array<{ words: unknown[] }> } }> };
    expect(detail.examples?.[0]?.result.segments[0]?.words.length).toBeGreaterThan(0);
  });

  it("documents better-auth's endpoints as better-auth defines them", async () => {
    const endpoints = await authEndpoints();
    for (const documented of documentedAuthEndpoints) {
      const actual = endpoints.find((e) => e.path === documented.path);
      expect(actual, `better-auth serves ${documented.path}`).toBeDefined();
      expect(actual!.methods, documented.path).toContain(documented.method);
      const shape = (schema: unknown) => {
        if (!schema) return undefined;
        const json = z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any", metadata: z.registry() }) as { properties?: Record<string, unknown>; required?: string[] };
        return { properties: Object.keys(json.properties ?? {}).sort(), required: [...(json.required ?? [])].sort() };
      };
      const body = shape(documented.schema.body);
      if (body) expect(body, `${documented.path} body`).toEqual(shape(actual!.body));
      const query = shape(documented.schema.querystring);
      if (query) expect(query, `${documented.path} query`).toEqual(shape(actual!.query));
    }
  });

  describe.skipIf(!toolPresent(oasdiff))("breaking changes against docs/openapi/released.json (oasdiff)", () => {
    const released = path.join(repoRoot, "docs/openapi/released.json");
    // Breaks made on purpose, each with its reason (docs/openapi/accepted-breaking.json, each with its reason): listed, never silent.
    const accepted = JSON.parse(readFileSync(path.join(repoRoot, "docs/openapi/accepted-breaking.json"), "utf8")) as Array<{ id: string; operation: string; path: string; reason: string }>;
    const isAccepted = (c: { id: string; operation?: string; path?: string }) => accepted.some((a) => a.id === c.id && a.operation === c.operation && a.path === c.path);
    const breaking = async (base: string, revision: unknown) => {
      const { file, remove } = await documentFile(revision);
      try {
        const { stdout } = await run(oasdiff, ["breaking", base, file, "--format", "json", "--fail-on", "ERR"]).catch((error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? "" }));
        const changes = (stdout.trim() ? JSON.parse(stdout) : []) as Array<{ id: string; level: number; text: string; operation?: string; path?: string }>;
        return changes.filter((c) => !isAccepted(c));
      } finally {
        await remove();
      }
    };

    it("the served document breaks nothing the released one promised (additions are fine)", { timeout: 120_000 }, async () => {
      // With the default configuration, as npm run openapi:release wrote the released one.
      const changes = await breaking(released, (await servedDocument()).document);
      expect(changes.filter((c) => c.level >= 3).map((c) => `${c.id} ${c.operation ?? ""} ${c.path ?? ""}: ${c.text}`)).toEqual([]);
    });

    it("would report a removed operation and a newly required field (the check can fail)", { timeout: 120_000 }, async () => {
      const { file, remove } = await documentFile(JSON.parse(await readFile(released, "utf8")));
      try {
        const changed = (await servedDocument()).document;
        delete changed.paths["/api/v1/models"];
        const upload = changed.components.schemas.UploadRequest as { properties: Record<string, unknown>; required: string[] };
        upload.properties.checksum = { type: "string" };
        upload.required.push("checksum");
        await copyFile(released, file);
        const ids = (await breaking(file, changed)).filter((c) => c.level >= 3).map((c) => c.id);
        expect(ids.sort()).toEqual(["api-path-removed-without-deprecation", "new-required-request-property"]);
      } finally {
        await remove();
      }
    });
  });
});

describe("the rule every new route follows", () => {
  const bare = async () => {
    const app = Fastify().withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await openApi(app, { publicBaseUrl: "http://localhost:8080", sessionCookieName: "better-auth.session_token" });
    return app;
  };
  const ok = z.object({ done: z.boolean() }).describe("Done");

  it("a route without operationId, tags or security cannot be registered", async () => {
    const app = await bare();
    expect(() => app.get("/api/v1/undocumented", { schema: { summary: "Something", response: { 200: ok } } }, async () => ({ done: true }))).toThrow(
      /GET \/api\/v1\/undocumented is not documented for OpenAPI: operationId \(camelCase\) is missing or malformed; tags are missing; security is missing/,
    );
    expect(() => app.get("/api/v1/snake", { schema: { operationId: "list_things", summary: "S", tags: ["meta"], security: [], response: { 200: ok } } }, async () => ({ done: true }))).toThrow(/operationId/);
    app.get("/api/v1/fine", { schema: { operationId: "getFine", summary: "Fine", tags: ["meta"], security: [], response: { 200: ok } } }, async () => ({ done: true }));
    expect(() => app.post("/api/v1/other", { schema: { operationId: "getFine", summary: "Again", tags: ["meta"], security: [], response: { 200: ok } } }, async () => ({ done: true }))).toThrow(
      /operationId getFine is used by GET \/api\/v1\/fine and POST \/api\/v1\/other/,
    );
    await app.close();
  });

  it("a response without a description stops the start", async () => {
    const app = await bare();
    app.get("/api/v1/vague", { schema: { operationId: "getVague", summary: "Vague", tags: ["meta"], security: [], response: { 200: z.object({ x: z.number() }) } } }, async () => ({ x: 1 }));
    await expect(app.ready()).rejects.toThrow(/GET \/api\/v1\/vague 200: describe the response schema/);
    await app.close().catch(() => {});
  });
});
