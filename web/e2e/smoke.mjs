#!/usr/bin/env node
// Browser smoke check of a served build: loads the home page, an unknown URL and a page
// whose code fails to load, in Chromium, and fails on missing texts or unexpected console errors.
// Usage: node web/e2e/smoke.mjs <base-url> [screenshot-dir]
//   e.g. (cd web && npx vite preview --port 4173) & node web/e2e/smoke.mjs http://127.0.0.1:4173 /tmp
// CHROMIUM_PATH overrides the browser binary (default /usr/bin/chromium).
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";

const [baseUrl, screenshotDir] = process.argv.slice(2);
if (!baseUrl) {
  console.error("usage: node web/e2e/smoke.mjs <base-url> [screenshot-dir]");
  process.exit(2);
}

const brand = process.env.VITE_BRAND?.trim() || "Transcribe";
const checks = [
  {
    name: "home",
    path: "/",
    texts: [brand, "Turn audio and video into timed transcripts you can play along with.", "Sign in"],
  },
  {
    name: "404",
    path: "/nope",
    texts: ["Page Not Found", "The page you're looking for doesn't exist or has been moved.", "Go back", "Return to homepage"],
  },
  {
    // A stale or broken chunk after a deploy is the realistic way a visitor meets the error screen.
    name: "error",
    path: "/terms",
    breakAssets: /\/assets\/terms-[^/]*\.js$/,
    texts: [
      "Something went wrong",
      "We're sorry, but something unexpected happened. Please try refreshing the page.",
      "Try again",
      "Reload page",
      "Go home",
    ],
    disabledButtons: ["Copy error details"],
    consoleErrorsExpected: true,
  },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  // Keep the browser from phoning home or needing a sandbox inside containers.
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

const failures = [];
try {
  for (const check of checks) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const consoleErrors = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
    let brokenAssets = 0;
    if (check.breakAssets) {
      await page.route(check.breakAssets, (route) => {
        brokenAssets += 1;
        return route.fulfill({ status: 500, body: "broken on purpose by smoke.mjs" });
      });
    }

    const url = new URL(check.path, baseUrl).toString();
    const response = await page.goto(url, { waitUntil: "networkidle" });
    if (!response?.ok()) failures.push(`${check.name}: ${url} answered ${response?.status()}`);

    for (const text of check.texts) {
      try {
        await page.getByText(text, { exact: true }).first().waitFor({ timeout: 5000 });
      } catch {
        failures.push(`${check.name}: text not shown: ${JSON.stringify(text)}`);
      }
    }
    for (const name of check.disabledButtons ?? []) {
      const button = page.getByRole("button", { name, exact: true });
      if ((await button.count()) === 0 || !(await button.isDisabled())) failures.push(`${check.name}: button not disabled: ${name}`);
    }
    if (check.breakAssets && brokenAssets === 0) failures.push(`${check.name}: no asset matched ${check.breakAssets}`);
    if (!check.consoleErrorsExpected) {
      for (const error of consoleErrors) failures.push(`${check.name}: console error: ${error}`);
    }

    if (screenshotDir) {
      await mkdir(screenshotDir, { recursive: true });
      await page.screenshot({ path: path.join(screenshotDir, `web-${check.name}.png`), fullPage: true });
    }
    console.log(`${check.name}: ${url} title=${JSON.stringify(await page.title())}`);
    await page.close();
  }
} finally {
  await browser.close();
}

if (failures.length > 0) {
  console.error(`smoke check failed:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log("smoke check passed");
