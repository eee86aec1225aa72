import { existsSync } from "node:fs";
import { skipWhen } from "@transcribe/platform/testing";
import { createLogger, loadConfig } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { buildBff } from "../../src/app.js";
import { bffConfigSchema } from "../../src/config.js";

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const browserHere = existsSync(chromiumPath);
if (!browserHere && process.env.CI) throw new Error(`Chromium not found at ${chromiumPath}`);
skipWhen("browser", !browserHere && `no Chromium at ${chromiumPath}`);

/**
 * decision 0025: the browsable reference at /api/docs renders the served document in Chromium,
 * under the BFF's own CSP, and no request leaves 127.0.0.1 (every other request is
 * recorded and aborted, so a CDN font or script would show here).
 */
describe("GET /api/docs", () => {
  it("is an HTML page whose scripts are our own files", async () => {
    const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent" }), createLogger("api-docs-test", "silent"));
    try {
      const page = await app.inject({ method: "GET", url: "/api/docs" });
      expect(page.statusCode).toBe(200);
      expect(page.headers["content-type"]).toContain("text/html");
      expect(page.headers["content-security-policy"]).toContain("script-src 'self';");
      expect(page.headers["content-security-policy"]).toContain("img-src 'self' data:;");
      const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
      expect(scripts).toEqual(["/api/docs/redoc.js", "/api/docs/init.js"]);
      const bundle = await app.inject({ method: "GET", url: "/api/docs/redoc.js" });
      expect(bundle.statusCode).toBe(200);
      expect(bundle.headers["content-type"]).toContain("javascript");
      expect(bundle.body.length).toBeGreaterThan(500_000);
    } finally {
      await app.close();
    }
  });

  it.skipIf(!browserHere)("renders the operations in Chromium with no request leaving 127.0.0.1", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", PUBLIC_BASE_URL: origin }), createLogger("api-docs-test", "silent"));
    await app.listen({ host: "127.0.0.1", port });
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
    try {
      const context = await browser.newContext();
      const outside: string[] = [];
      const local: string[] = [];
      await context.route("**/*", async (route) => {
        const url = route.request().url();
        if (url.startsWith(`${origin}/`)) {
          local.push(url.slice(origin.length));
          return route.continue();
        }
        if (url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
        outside.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${origin}/api/docs`, { waitUntil: "networkidle" });
      // Redoc renders each operation's summary; these come from the routes' own schemas.
      for (const summary of ["Start transcribing an uploaded file", "Export a completed transcript", "Mail a sign-in link (signs up on first use)"]) {
        await page.getByText(summary, { exact: true }).first().waitFor({ state: "attached", timeout: 30_000 });
      }
      await page.waitForLoadState("networkidle");
      expect(local).toContain("/api/v1/openapi.json");
      expect(outside, "requests that would leave the machine").toEqual([]);
      // The page's CSP keeps Redoc's "powered by" logo (cdn.redoc.ly) from loading; nothing else is refused.
      expect(violations.filter((v) => !/Loading the image 'https:\/\/cdn\.redoc\.ly\/[^']+' violates .*img-src/.test(v))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await app.close();
    }
  });
});
