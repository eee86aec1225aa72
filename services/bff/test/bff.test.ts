import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { createLogger, loadConfig, type ServiceServer, startServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";
import { upstreamNames } from "../src/upstreams.js";

const logger = createLogger("bff-test", "silent");

/** Real service servers (the platform's, with its HealthService) standing where each service would. */
async function startUpstreams(options: { failing?: string } = {}) {
  const servers: ServiceServer[] = [];
  const urls: Record<string, string> = {};
  for (const name of upstreamNames) {
    const server = await startServiceServer({
      name,
      host: "127.0.0.1",
      port: 0,
      logger,
      readiness:
        name === options.failing
          ? [{ name: "postgres", check: () => Promise.reject(new Error("connection refused")) }]
          : [{ name: "postgres", check: () => Promise.resolve() }],
    });
    servers.push(server);
    urls[`${name.toUpperCase().replace(/-/g, "_")}_URL`] = server.url;
  }
  return { urls, close: () => Promise.all(servers.map((s) => s.close())) };
}

async function bffWith(env: Record<string, string>) {
  const config = loadConfig(bffConfigSchema, { HEALTH_TIMEOUT_MS: "1000", ...env });
  return buildBff(config, logger);
}

describe("GET /api/v1/health", () => {
  it("is 200 and lists the BFF and every service when all answer", async () => {
    const upstreams = await startUpstreams();
    const app = await bffWith({ ...upstreams.urls, WEB_DIST_DIR: "/nonexistent" });
    try {
      const response = await app.inject({ method: "GET", url: "/api/v1/health" });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.status).toBe("ok");
      expect(body.services.map((s: { name: string }) => s.name)).toEqual(["bff", ...upstreamNames]);
      for (const service of body.services) {
        expect(service.ok).toBe(true);
        expect(service.latency_ms).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await app.close();
      await upstreams.close();
    }
  });

  it("is 503 naming a service that is down or whose dependency fails", async () => {
    const upstreams = await startUpstreams({ failing: "billing" });
    const closedPort = await freePort();
    const app = await bffWith({ ...upstreams.urls, EXPORT_URL: `http://127.0.0.1:${closedPort}`, WEB_DIST_DIR: "/nonexistent" });
    try {
      const response = await app.inject({ method: "GET", url: "/api/v1/health" });
      expect(response.statusCode).toBe(503);
      const body = response.json();
      expect(body.status).toBe("unavailable");
      const down = body.services.filter((s: { ok: boolean }) => !s.ok);
      expect(down.map((s: { name: string }) => s.name).sort()).toEqual(["billing", "export"]);
      expect(down.find((s: { name: string }) => s.name === "billing").detail).toContain("postgres: connection refused");
    } finally {
      await app.close();
      await upstreams.close();
    }
  });
});

describe("SPA and API fallbacks", () => {
  let dist: string;
  beforeAll(async () => {
    dist = await mkdtemp(path.join(tmpdir(), "bff-dist-"));
    await mkdir(path.join(dist, "assets"));
    await writeFile(path.join(dist, "index.html"), '<!doctype html><div id="root"></div>');
    await writeFile(path.join(dist, "assets", "app-abc123.js"), "console.log(1)");
  });
  afterAll(() => rm(dist, { recursive: true, force: true }));

  it("serves index.html for / and for any unknown page path, never cached", async () => {
    const app = await bffWith({ WEB_DIST_DIR: dist });
    for (const url of ["/", "/nope", "/transcript/123?x=1"]) {
      const response = await app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toContain('<div id="root"></div>');
      expect(response.headers["cache-control"]).toBe("no-cache");
    }
    await app.close();
  });

  it("serves hashed assets with a long immutable cache", async () => {
    const app = await bffWith({ WEB_DIST_DIR: dist });
    const response = await app.inject({ method: "GET", url: "/assets/app-abc123.js" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["cache-control"]).toContain("immutable");
    await app.close();
  });

  it("answers unknown API paths and non-GET methods with the JSON error shape", async () => {
    const app = await bffWith({ WEB_DIST_DIR: dist });
    const api = await app.inject({ method: "GET", url: "/api/v1/does-not-exist" });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ error: { code: "not_found", message: "No route for GET /api/v1/does-not-exist" } });
    const post = await app.inject({ method: "POST", url: "/somewhere", payload: {} });
    expect(post.statusCode).toBe(404);
    expect(post.json().error.code).toBe("not_found");
    await app.close();
  });

  it("publishes an OpenAPI 3.1 document generated from the route schemas", async () => {
    const app = await bffWith({ WEB_DIST_DIR: dist });
    const response = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toBe("3.1.0");
    const health = doc.paths["/api/v1/health"].get;
    expect(Object.keys(health.responses).sort()).toEqual(["200", "503"]);
    expect(health.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/Health");
    expect(JSON.stringify(doc.components.schemas.Health)).toContain("latency_ms");
    await app.close();
  });
});

describe("/auth/* forwarding", () => {
  it("forwards method, path, query and raw body, and returns status, body and every Set-Cookie", async () => {
    const upstream = Fastify();
    upstream.removeAllContentTypeParsers();
    upstream.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
    upstream.post("/auth/sign-in/magic-link", async (request, reply) => {
      reply.header("set-cookie", ["a=1; HttpOnly; Path=/", "b=2; Path=/; SameSite=Lax"]);
      return reply.code(201).send({
        query: request.query,
        body: (request.body as Buffer).toString("utf8"),
        contentType: request.headers["content-type"],
      });
    });
    const upstreamUrl = await upstream.listen({ host: "127.0.0.1", port: 0 });
    const app = await bffWith({ AUTH_URL: upstreamUrl, WEB_DIST_DIR: "/nonexistent" });
    try {
      const raw = '{"email":"a@example.com",  "callbackURL":"/dashboard"}';
      const response = await app.inject({
        method: "POST",
        url: "/auth/sign-in/magic-link?x=1",
        headers: { "content-type": "application/json" },
        payload: raw,
      });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ query: { x: "1" }, body: raw, contentType: "application/json" });
      expect(response.headers["set-cookie"]).toEqual(["a=1; HttpOnly; Path=/", "b=2; Path=/; SameSite=Lax"]);
    } finally {
      await app.close();
      await upstream.close();
    }
  });

  it("refuses a body over the auth service's 1 MB limit with 413 at the edge, sized or streamed, and forwards one under it", async () => {
    const upstream = Fastify();
    upstream.removeAllContentTypeParsers();
    upstream.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    let reached = 0;
    upstream.post("/auth/sign-in/email", async (request) => {
      reached += 1;
      return { bytes: (request.body as Buffer).length };
    });
    const upstreamUrl = await upstream.listen({ host: "127.0.0.1", port: 0 });
    const app = await bffWith({ AUTH_URL: upstreamUrl, WEB_DIST_DIR: "/nonexistent" });
    const bffUrl = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const big = `{"email":"${"a".repeat(2 * 1024 * 1024)}"}`;
      const sized = await fetch(`${bffUrl}/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin: bffUrl }, body: big });
      expect(sized.status).toBe(413);
      expect(((await sized.json()) as { error: { message: string } }).error.message).toBeTruthy();
      // Chunked, without a length: refused the same way once the limit is passed.
      const chunks = Readable.from([Buffer.from(big.slice(0, 700_000)), Buffer.from(big.slice(700_000))]);
      const streamed = await fetch(`${bffUrl}/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin: bffUrl }, body: Readable.toWeb(chunks) as ReadableStream, duplex: "half" } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(reached).toBe(0);
      const small = await fetch(`${bffUrl}/auth/sign-in/email`, { method: "POST", headers: { "content-type": "application/json", origin: bffUrl }, body: '{"email":"a@example.com"}' });
      expect(small.status).toBe(200);
      expect(await small.json()).toEqual({ bytes: 25 });
    } finally {
      await app.close();
      await upstream.close();
    }
  });

  it("answers 502/503 with the JSON error shape when the auth service is down", async () => {
    const app = await bffWith({ AUTH_URL: `http://127.0.0.1:${await freePort()}`, WEB_DIST_DIR: "/nonexistent" });
    const response = await app.inject({ method: "GET", url: "/auth/get-session" });
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(response.json().error.message).toBeTruthy();
    await app.close();
  });
});
