#!/usr/bin/env node
// Browser journey of speakers (issue 18) against a running stack with a mail catcher, the
// local Whisper engine and the diarizer's weights: sign in, upload a two-voice conversation
// (espeak-ng's en-us pitched down and its female variant pitched up, with sox), start it
// with "Identify speakers" on, open the transcript, see two speakers in colour with turn
// labels, rename "S1" in place, hide the other speaker, and download the vtt from the
// export menu: its cues carry <v Name>.
// Usage: node web/e2e/speakers.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// Needs espeak-ng, sox and ffmpeg on PATH. CHROMIUM_PATH overrides the browser binary.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CHROMIUM_ARGS, checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, TIMEOUT_MS, PROCESSING_TIMEOUT_MS, TRANSCRIPTION_TIMEOUT_MS } from "./lib/journey.mjs";
import { chooseInCombobox, chooseInSelect } from "./lib/controls.mjs";
import { chromium } from "playwright-core";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const NEW_NAME = "Alice Example";

const LINES = [
  ["low", "Good morning everyone, thanks for joining the weekly planning meeting today."],
  ["high", "Thanks. Before we start, can you tell me whether the customer reports are ready?"],
  ["low", "We finished the migration of the billing database last Thursday without any downtime."],
  ["high", "That is great news. Did anyone notice the slower queries on the dashboard afterwards?"],
];
const VOICES = { low: ["en-us", "160", "-300"], high: ["en-us+f4", "175", "200"] };

const { check, report } = checklist();
const email = randomEmail("speakers");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-speakers-"));
const fileName = `e2e-speakers-${Date.now()}.mp3`;
const displayName = fileName.replace(/\.mp3$/, "");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });

try {
  // Two clearly different voices taking turns, 0.6 s apart.
  const parts = [];
  const gap = path.join(workDir, "gap.wav");
  execFileSync("sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", "0.6"]);
  LINES.forEach(([voice, text], i) => {
    const [name, speed, cents] = VOICES[voice];
    const raw = path.join(workDir, `u${i}-raw.wav`);
    const out = path.join(workDir, `u${i}.wav`);
    execFileSync("espeak-ng", ["-v", name, "-s", speed, "-w", raw, text]);
    execFileSync("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", out, "pitch", cents]);
    parts.push(out, gap);
  });
  const wav = path.join(workDir, "conversation.wav");
  execFileSync("sox", [...parts, wav]);
  const audioPath = path.join(workDir, fileName);
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-codec:a", "libmp3lame", "-b:a", "128k", audioPath]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  const shot = async (name) => {
    if (!screenshotDir) return;
    await mkdir(screenshotDir, { recursive: true });
    await page.screenshot({ path: path.join(screenshotDir, `web-speakers-${name}.png`), fullPage: true });
  };

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  if (!check("once uploaded and processed, the start form is shown", await visible(startForm, PROCESSING_TIMEOUT_MS))) throw new Error("the file was not processed");
  const catalog = await page.evaluate(async () => (await fetch("/api/v1/models", { credentials: "include" })).json());
  const tiny = catalog.models?.find((m) => m.id === "whisper-tiny.en" && m.available);
  if (tiny) await chooseInSelect(page, startForm, "Model", tiny.name);
  await chooseInCombobox(page, startForm, "Language", "English");
  await startForm.getByLabel("Identify speakers").check();
  check("the start form offers speaker counts once 'Identify speakers' is on", await visible(startForm.getByLabel("Max speakers"), TIMEOUT_MS));
  await startForm.getByLabel("Max speakers").fill("0");
  await startForm.getByRole("button", { name: "Start transcription" }).click();
  check("a bad speaker count is refused on the form", await visible(startForm.getByText("Maximum number of speakers must be a whole number from 1 to 20"), TIMEOUT_MS));
  await startForm.getByLabel("Max speakers").fill("");
  await startForm.getByRole("button", { name: "Start transcription" }).click();

  const row = page.locator("section.transcriptions table tbody tr").filter({ hasText: displayName });
  if (!check("after starting, the file is listed", await visible(row.first(), TIMEOUT_MS))) throw new Error("not listed");
  const started = Date.now();
  let status = "";
  while (Date.now() - started < TRANSCRIPTION_TIMEOUT_MS) {
    status = ((await row.first().locator("td").nth(3).textContent().catch(() => "")) ?? "").trim();
    if (status === "Completed" || status === "Failed") break;
    await page.waitForTimeout(500);
  }
  check("the transcription completes", status === "Completed", `${status}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (status !== "Completed") throw new Error(`the transcription ended '${status}'`);

  await row.first().getByRole("link").click();
  await page.waitForURL((url) => url.pathname.startsWith("/transcript/"), { timeout: TIMEOUT_MS });
  const panel = page.getByLabel("Speakers", { exact: true });
  if (!check("the transcript page shows the speakers", await visible(panel, TIMEOUT_MS))) throw new Error("no speaker panel");
  const rows = panel.locator(".speaker-row");
  const ids = await rows.evaluateAll((items) => items.map((item) => item.getAttribute("data-speaker")));
  check("two speakers were found: S1 and S2", ids.join(",") === "S1,S2", ids.join(","));
  const tags = page.locator("ol.segments .speaker-tag");
  const tagTexts = (await tags.allTextContents()).map((t) => t.trim());
  check("speaker turns are labelled in the segment list, alternating", tagTexts.length >= 3 && tagTexts.every((t, i) => i === 0 || t !== tagTexts[i - 1]), tagTexts.join(" → "));
  const colours = await tags.evaluateAll((items) => [...new Set(items.map((item) => getComputedStyle(item).color))]);
  check("each speaker has its own colour", colours.length === 2, colours.join(", "));
  await shot("found");

  // Rename S1 in place.
  await panel.getByRole("button", { name: "Rename speaker S1" }).click();
  const nameInput = panel.getByLabel("Speaker name");
  await nameInput.fill("   ");
  await panel.getByRole("button", { name: "Save" }).click();
  check("an empty name is refused in place", await visible(panel.getByText("Speaker name cannot be empty"), TIMEOUT_MS));
  await nameInput.fill(`  ${NEW_NAME}  `);
  await panel.getByRole("button", { name: "Save" }).click();
  check("the new name shows in the panel", await visible(panel.locator(".speaker-name", { hasText: NEW_NAME }), TIMEOUT_MS));
  check("and on the speaker's turns", await visible(page.locator("ol.segments .speaker-tag", { hasText: NEW_NAME }).first(), TIMEOUT_MS));

  // Filter: hide S2's segments, then show them again.
  const total = await page.locator("ol.segments > li").count();
  await panel.getByRole("button", { name: "Hide S2's segments" }).click();
  const shownS2 = await page.locator('ol.segments > li[data-speaker="S2"]').count();
  const shownS1 = await page.locator('ol.segments > li[data-speaker="S1"]').count();
  check("hiding S2 leaves only S1's segments", shownS2 === 0 && shownS1 > 0 && shownS1 < total, `${shownS1} of ${total}`);
  await page.getByRole("button", { name: "Show all speakers" }).click();
  check("showing all brings them back", (await page.locator("ol.segments > li").count()) === total);
  await shot("renamed");

  // The vtt from the export menu carries the new name as a voice span.
  await page.getByRole("button", { name: "Export" }).click();
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 60_000 }), page.getByRole("menuitem", { name: "WebVTT (.vtt)" }).click()]);
  const vtt = await readFile(await download.path(), "utf8");
  check(`the downloaded vtt has <v ${NEW_NAME}> cues`, vtt.startsWith("WEBVTT") && vtt.includes(`<v ${NEW_NAME}>`), vtt.split("\n").slice(0, 8).join(" | "));
  check("and the other speaker's cues as <v S2>, no stale <v S1>", vtt.includes("<v S2>") && !vtt.includes("<v S1>"));

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`speakers: ${baseUrl} (mail catcher ${mailUrl}), ${email}, ${fileName}`));
