// The preamble every signed-in browser journey shares: its arguments
// (`node web/e2e/<name>.mjs <base-url> <mail-catcher-url> [screenshot-dir]`) and the time
// limits a busy machine may need (E2E_TIMEOUT_MS for a page, E2E_PROCESSING_TIMEOUT_MS for
// media's processing, E2E_TRANSCRIPTION_TIMEOUT_MS for a transcription).
import { mkdir } from "node:fs/promises";
import path from "node:path";

export const TIMEOUT_MS = Number(process.env.E2E_TIMEOUT_MS ?? 20_000);
export const PROCESSING_TIMEOUT_MS = Number(process.env.E2E_PROCESSING_TIMEOUT_MS ?? 120_000);
export const TRANSCRIPTION_TIMEOUT_MS = Number(process.env.E2E_TRANSCRIPTION_TIMEOUT_MS ?? 300_000);

/** The journey's arguments, or its usage line and exit 2 when the base or mail URL is missing. */
export function journeyArgs(scriptUrl) {
  const [baseUrl, mailUrl, screenshotDir] = process.argv.slice(2);
  if (!baseUrl || !mailUrl) {
    console.error(`usage: node web/e2e/${path.basename(new URL(scriptUrl).pathname)} <base-url> <mail-catcher-url> [screenshot-dir]`);
    process.exit(2);
  }
  return { baseUrl, mailUrl, screenshotDir };
}

/**
 * A journey's page in a fresh 1280×900 context (`contextOptions` adds to or overrides Playwright's): the page errors it collects (a journey fails
 * on any) and `shot(name)`, a screenshot `web-<journey>-<name>.png` when a folder was given.
 */
export async function openJourneyPage(browser, { journey, screenshotDir, acceptDownloads = false, fullPage = false, contextOptions = {} }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(acceptDownloads ? { acceptDownloads } : {}), ...contextOptions });
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  const shot = async (name) => {
    if (!screenshotDir) return;
    await mkdir(screenshotDir, { recursive: true });
    await page.screenshot({ path: path.join(screenshotDir, `web-${journey}-${name}.png`), ...(fullPage ? { fullPage } : {}) });
  };
  return { context, page, pageErrors, shot };
}

/** The dashboard table's row of a transcription, by its display name. */
export const transcriptionRow = (page, displayName) => page.locator("section.transcriptions table tbody tr").filter({ hasText: displayName }).first();

/**
 * Reads a row's status (its fourth cell) until it says Completed or Failed, or
 * TRANSCRIPTION_TIMEOUT_MS has passed: the last status, the statuses in the order seen, and
 * the seconds it took.
 */
export async function waitForFinalStatus(page, row, everyMs = 500) {
  const started = Date.now();
  const seen = [];
  let status = "";
  while (Date.now() - started < TRANSCRIPTION_TIMEOUT_MS) {
    status = ((await row.locator("td").nth(3).textContent().catch(() => "")) ?? "").trim();
    if (status && seen.at(-1) !== status) seen.push(status);
    if (status === "Completed" || status === "Failed") break;
    await page.waitForTimeout(everyMs);
  }
  return { status, seen, seconds: (Date.now() - started) / 1000 };
}
