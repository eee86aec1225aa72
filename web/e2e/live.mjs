#!/usr/bin/env node
// Browser journey of live transcription (decision 0030) against a running stack with a mail
// catcher, the local Whisper engine and the live worker: Chromium's fake microphone plays a
// speech file (--use-file-for-fake-audio-capture); sign in, open /live from the dashboard,
// start, see the spoken words appear while the file plays (unsettled ones styled apart),
// the elapsed time and the level meter move, pause and resume, stop; the recording is saved
// as a transcription in the list, whose batch pass completes and whose txt export holds the
// words.
// Usage: node web/e2e/live.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { journeyArgs, openJourneyPage, TIMEOUT_MS, TRANSCRIPTION_TIMEOUT_MS } from "./lib/journey.mjs";
import { checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { launchWithFakeMicrophone } from "./lib/fake-microphone.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

// The live decode lags on a loaded machine; the words must still come while the file plays.
const WORDS_TIMEOUT_MS = Number(process.env.E2E_LIVE_WORDS_TIMEOUT_MS ?? 60_000);
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";

const { check, report } = checklist();
const email = randomEmail("live");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-live-"));
let browser;

try {
  browser = await launchWithFakeMicrophone(workDir, SCRIPT);
  const { page, pageErrors, shot } = await openJourneyPage(browser, { journey: "live", screenshotDir, contextOptions: { permissions: ["microphone"] } });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  const link = page.getByRole("link", { name: "Start live transcription" });
  check("the dashboard links to the live page", await visible(link, TIMEOUT_MS));
  await link.click();
  await page.waitForURL((url) => url.pathname === "/live", { timeout: TIMEOUT_MS });
  check("/live shows its heading", await visible(page.getByRole("heading", { level: 1, name: "Live transcription" }), TIMEOUT_MS));

  await page.getByRole("button", { name: "Start live transcription" }).click();
  check("the session goes live", await visible(page.getByText("Live", { exact: true }), 120_000));
  const startedAt = Date.now();
  const transcript = page.getByTestId("live-transcript");

  // Words while the file plays: partial (styled apart) first, then settled.
  let sawPartial = false;
  let partialStyle = "";
  let text = "";
  const levels = new Set();
  while (Date.now() - startedAt < WORDS_TIMEOUT_MS) {
    const partial = page.getByTestId("live-partial");
    if (!sawPartial && (await partial.count()) > 0) {
      sawPartial = true;
      partialStyle = await partial.first().evaluate((el) => getComputedStyle(el).fontStyle);
    }
    levels.add(await page.getByRole("meter", { name: "Microphone level" }).getAttribute("aria-valuenow"));
    text = (await transcript.textContent()) ?? "";
    if (/committee/i.test(text) && /library/i.test(text) && sawPartial) break;
    await page.waitForTimeout(200);
  }
  await shot("words");
  check("the spoken words appear while the file plays", /committee/i.test(text) && /library/i.test(text), `${((Date.now() - startedAt) / 1000).toFixed(1)} s: "${text.trim()}"`);
  check("unsettled words are shown, styled apart (italic)", sawPartial && partialStyle === "italic", `${sawPartial} ${partialStyle}`);
  check("the level meter moves", levels.size > 2, [...levels].join(","));
  const elapsed = (await page.getByTestId("live-elapsed").textContent())?.trim();
  check("the elapsed time runs", elapsed !== "00:00", elapsed);

  await page.getByRole("button", { name: "Pause" }).click();
  check("pause shows 'Paused'", await visible(page.getByText("Paused", { exact: true }), TIMEOUT_MS));
  await page.waitForTimeout(1_000);
  await page.getByRole("button", { name: "Resume" }).click();
  check("resume goes live again", await visible(page.getByText("Live", { exact: true }), TIMEOUT_MS));
  await page.waitForTimeout(2_000);

  await page.getByRole("button", { name: "Stop" }).click();
  const saved = page.getByRole("link", { name: "open the transcript" });
  check("stop saves the recording as a transcription", await visible(saved, 180_000));
  await shot("stopped");
  const href = await saved.getAttribute("href");
  const id = href?.split("/").at(-1);

  // The magic link signs in on the product's own origin (which may differ from baseUrl's host).
  const origin = new URL(page.url()).origin;
  await page.goto(`${origin}/dashboard`);
  const row = page.locator("section.transcriptions table tbody tr").first();
  const listed = await visible(row, 60_000);
  await shot("dashboard");
  check("the dashboard lists it", listed, `${id}: ${(await row.textContent().catch(() => "")) ?? ""}`);

  // The batch pass replaces the live text; its export holds the words.
  const started = Date.now();
  let status = "";
  let answer = "";
  while (Date.now() - started < TRANSCRIPTION_TIMEOUT_MS) {
    answer = await page.evaluate(async (tid) => (await fetch(`/api/v1/transcriptions/${tid}`, { credentials: "include" })).text(), id);
    status = String(JSON.parse(answer).status ?? "");
    if (status === "completed" || status === "failed") break;
    await page.waitForTimeout(1_000);
  }
  check("the full-quality pass completes", status === "completed", `${status} ${answer.slice(0, 200)}`);
  await page.goto(`${origin}/transcript/${id}`);
  const trigger = page.getByRole("button", { name: "Export" });
  await trigger.waitFor({ state: "visible", timeout: TIMEOUT_MS });
  await trigger.click();
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 60_000 }), page.getByRole("menuitem", { name: "Text (.txt)" }).click()]);
  const exported = await readFile(await download.path(), "utf8");
  check("its txt export holds the spoken words", /committee/i.test(exported) && /library/i.test(exported), exported.slice(0, 200));
  check("no page errors", pageErrors.length === 0, pageErrors.join("; "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser?.close();
  await rm(workDir, { recursive: true, force: true });
}
process.exit(report("live transcription journey"));
