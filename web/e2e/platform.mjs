#!/usr/bin/env node
// Browser check of the site-wide platform features on a served build: the theme picker
// (persisted across a reload, 'system' following the OS live) and the network toasts
// (real offline/online transitions of the browser context).
// Usage: node web/e2e/platform.mjs <base-url> [screenshot-dir]
//   e.g. npm run build -w web && (cd web && npx vite preview --port 4173) &
//        node web/e2e/platform.mjs http://127.0.0.1:4173 /tmp
// CHROMIUM_PATH overrides the browser binary (default /usr/bin/chromium).
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";

const [baseUrl, screenshotDir] = process.argv.slice(2);
if (!baseUrl) {
  console.error("usage: node web/e2e/platform.mjs <base-url> [screenshot-dir]");
  process.exit(2);
}

const THEME_STORAGE_KEY = "vite-ui-theme";
const TIMEOUT_MS = 5000;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  // Keep the browser from phoning home or needing a sandbox inside containers.
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

const failures = [];
const steps = [];

function check(name, ok, detail = "") {
  steps.push(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` (${detail})` : ""}`);
  if (!ok) failures.push(`${name}${detail ? `: ${detail}` : ""}`);
}

try {
  // The OS prefers dark: the app must still start light (docs/requirements.md "Entities"), and 'system' must follow it.
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: "dark" });
  const page = await context.newPage();
  const pageErrors = [];
  const consoleErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });

  const htmlClasses = () => page.evaluate(() => document.documentElement.className.split(/\s+/).filter(Boolean));
  const storedTheme = () => page.evaluate((key) => window.localStorage.getItem(key), THEME_STORAGE_KEY);
  const waitForHtmlClass = async (name) => {
    try {
      await page.waitForFunction((cls) => document.documentElement.classList.contains(cls), name, { timeout: TIMEOUT_MS });
      return true;
    } catch {
      return false;
    }
  };
  const shot = async (name) => {
    if (!screenshotDir) return;
    await mkdir(screenshotDir, { recursive: true });
    // Let sonner's enter/replace animations (400 ms) finish so the picture shows the settled state.
    await page.waitForTimeout(600);
    await page.screenshot({ path: path.join(screenshotDir, `web-platform-${name}.png`) });
  };
  const pickTheme = async (label) => {
    await page.getByRole("button", { name: /^Theme:/ }).first().click();
    await page.getByRole("menuitemradio", { name: label, exact: true }).click();
  };
  const toastShown = async (text) => {
    try {
      await page.locator("[data-sonner-toast]").getByText(text, { exact: true }).waitFor({ state: "visible", timeout: TIMEOUT_MS });
      return true;
    } catch {
      return false;
    }
  };

  const url = new URL("/", baseUrl).toString();
  const response = await page.goto(url, { waitUntil: "networkidle" });
  check("home page loads", Boolean(response?.ok()), `${url} answered ${response?.status()}`);
  await page.getByRole("button", { name: /^Theme:/ }).first().waitFor({ timeout: TIMEOUT_MS });

  const startClasses = await htmlClasses();
  check("starts light although the OS prefers dark", startClasses.includes("light") && !startClasses.includes("dark"), startClasses.join(" "));
  check("no toast on first load", (await page.locator("[data-sonner-toast]").count()) === 0);

  await pickTheme("System");
  check("'system' follows the OS (dark)", await waitForHtmlClass("dark"));
  await page.emulateMedia({ colorScheme: "light" });
  check("'system' follows an OS change live (light)", await waitForHtmlClass("light"));

  await pickTheme("Dark");
  check("picking Dark puts 'dark' on <html>", await waitForHtmlClass("dark"));
  check("the choice is stored", (await storedTheme()) === "dark", `localStorage[${THEME_STORAGE_KEY}]=${await storedTheme()}`);

  await page.reload({ waitUntil: "networkidle" });
  const reloadedClasses = await htmlClasses();
  check("after reload <html> is still dark", reloadedClasses.includes("dark") && !reloadedClasses.includes("light"), reloadedClasses.join(" "));
  check("after reload the choice is still stored", (await storedTheme()) === "dark");
  check(
    "after reload the picker shows Dark",
    (await page.getByRole("button", { name: "Theme: Dark" }).count()) > 0,
  );
  await shot("dark");

  await context.setOffline(true);
  check("offline: 'Network disconnected' toast", await toastShown("Network disconnected"));
  check("offline: 'Check your internet connection' shown", await toastShown("Check your internet connection"));
  await shot("offline");

  await context.setOffline(false);
  check("online again: 'Network connected' toast", await toastShown("Network connected"));
  await shot("online");

  for (const error of pageErrors) check("no uncaught page error", false, error);
  for (const error of consoleErrors) {
    // Requests that fail while the context is offline are expected, and only those.
    if (!/ERR_INTERNET_DISCONNECTED/.test(error)) check("no console error", false, error);
  }
  await context.close();
} finally {
  await browser.close();
}

console.log(steps.join("\n"));
if (failures.length > 0) {
  console.error(`platform check failed:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
console.log("platform check passed");
