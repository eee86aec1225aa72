import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger, loadConfig } from "@transcribe/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

const logger = createLogger("bff-probes-test", "silent");

describe("the orchestrator's probes", () => {
  let dist: string;
  beforeAll(async () => {
    dist = await mkdtemp(path.join(tmpdir(), "bff-probes-"));
    await writeFile(path.join(dist, "index.html"), "<!doctype html>");
  });
  afterAll(() => rm(dist, { recursive: true, force: true }));

  it("answers /healthz and /readyz as JSON (not the SPA), without a session and with no service behind it", async () => {
    // Every upstream URL points at a closed port: readiness must not depend on them.
    const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: dist, AUTH_URL: "http://127.0.0.1:9" }), logger);
    try {
      const live = await app.inject({ method: "GET", url: "/healthz" });
      expect([live.statusCode, live.json()]).toEqual([200, { ok: true, service: "bff" }]);
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ service: "bff", ok: true, dependencies: [{ name: "web", ok: true }] });
    } finally {
      await app.close();
    }
  });

  it("is not ready without the built web app, naming the dependency but no path (the log has it)", async () => {
    const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent" }), logger);
    try {
      expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ service: "bff", ok: false, dependencies: [{ name: "web", ok: false }] });
    } finally {
      await app.close();
    }
  });
});
