#!/usr/bin/env node
// Browser journey of the transcription (docs/api.md) and exports (decision 0007) against a running
// stack with a mail catcher and the local Whisper engine: sign in through the UI, upload
// real speech synthesized from a known script (espeak-ng → WAV → ffmpeg → mp3), start it
// with the default local model, watch the table's status reach 'Completed' without a
// reload, open the transcript, compare its text with the script (word error rate ≤ 20%,
// printed), play it and see the highlighted segment move, click a later segment and see the
// player jump there; then export every format from the menu and get non-empty files.
// Usage: node web/e2e/transcript.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary;
// E2E_TRANSCRIPTION_TIMEOUT_MS the wait for the engine (default 5 minutes).
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { exportEachFormat } from "./lib/exports.mjs";
import { CHROMIUM_ARGS, checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, openJourneyPage, PROCESSING_TIMEOUT_MS, TIMEOUT_MS, TRANSCRIPTION_TIMEOUT_MS, transcriptionRow, waitForFinalStatus } from "./lib/journey.mjs";
import { chooseInCombobox, chooseInSelect } from "./lib/controls.mjs";
import { espeakNgSync, FFMPEG, FFPROBE } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const MAX_WER = 0.2;

// Three sentences with pauses between them, so Whisper returns several segments (~11 s).
const SENTENCES = [
  "The quick brown fox jumps over the lazy dog.",
  "Open source software lets everyone run their own transcription service.",
  "Thank you for listening to this short test.",
];
const SCRIPT = SENTENCES.join(" ");

/** Lower-case words without punctuation (keeps apostrophes inside words). */
export function words(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s-]/gu, " ")
    .replace(/-/g, " ")
    .split(/\s+/)
    .filter(Boolean);
}

/** Word error rate: word-level Levenshtein distance (substitutions + deletions + insertions) / reference length. */
export function wordErrorRate(reference, hypothesis) {
  const ref = words(reference);
  const hyp = words(hypothesis);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const cost = ref[i - 1] === hyp[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
    }
    previous = current;
  }
  return { errors: previous[hyp.length], words: ref.length, wer: ref.length === 0 ? 0 : previous[hyp.length] / ref.length };
}

const { check, report } = checklist();
const email = randomEmail("transcript");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-transcript-"));
const fileName = `e2e-transcript-${Date.now()}.mp3`;
const displayName = fileName.replace(/\.mp3$/, "");
const audioPath = path.join(workDir, fileName);
// Headless Chromium plays audio without a user gesture only with this policy.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [...CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"],
});

try {
  const wavPath = path.join(workDir, "speech.wav");
  const ssml = `<speak>${SENTENCES.join("<break time='1200ms'/>")}</speak>`;
  espeakNgSync(["-m", "-w", wavPath, ssml]);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wavPath, "-codec:a", "libmp3lame", "-b:a", "128k", audioPath]);
  const size = (await stat(audioPath)).size;
  const seconds = Number(execFileSync(FFPROBE, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", audioPath], { encoding: "utf8" }).trim());
  check("espeak-ng and ffmpeg made a real mp3 of the script", size > 10_000 && seconds > 6, `${size} bytes, ${seconds.toFixed(1)} s`);

  const { page, pageErrors, shot } = await openJourneyPage(browser, { journey: "transcript", screenshotDir, acceptDownloads: true });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  check("the dashboard shows 'Your Transcriptions'", await visible(page.getByRole("heading", { level: 1, name: "Your Transcriptions" }), TIMEOUT_MS));

  // Upload and wait for the file to be processed.
  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  if (!check("once uploaded and processed, the start form is shown", await visible(startForm, PROCESSING_TIMEOUT_MS))) throw new Error("the file was not processed");

  // The default model is the first available one (the local Whisper engine here).
  const modelName = ((await startForm.getByRole("combobox", { name: "Model", exact: true }).textContent()) ?? "").trim();
  const catalog = await page.evaluate(async () => (await fetch("/api/v1/models", { credentials: "include" })).json());
  const model = catalog.models?.find((m) => m.name === modelName)?.id;
  const provider = catalog.models?.find((m) => m.id === model)?.provider;
  check("the default model is a local one", provider === "local", `${model} (${provider}): ${modelName}`);
  const languageShown = await chooseInCombobox(page, startForm, "Language", "English");
  check("the language is chosen by typing its name in the searchable list", languageShown === "English (en)", languageShown);
  await startForm.getByRole("button", { name: "Start transcription" }).click();

  // Live status: a marker on window survives only if the page is never reloaded.
  await page.evaluate(() => {
    window.__noReload = true;
  });
  const row = transcriptionRow(page, displayName);
  if (!check("after starting, the file is listed in the table", await visible(row.first(), TIMEOUT_MS))) throw new Error("not listed");
  const { status, seen, seconds: waited } = await waitForFinalStatus(page, row, 250);
  const seconds2 = waited.toFixed(1);
  const stillSamePage = await page.evaluate(() => window.__noReload === true);
  check("the row's status becomes 'Completed' without reloading the page", status === "Completed" && stillSamePage, `statuses seen: ${seen.join(" → ")}; ${seconds2} s; same document: ${stillSamePage}`);
  await shot("completed");
  if (status !== "Completed") throw new Error(`the transcription ended '${status}'`);

  // Open the transcript from the table.
  await row.first().getByRole("link").click();
  await page.waitForURL((url) => url.pathname.startsWith("/transcript/"), { timeout: TIMEOUT_MS });
  const id = new URL(page.url()).pathname.split("/").at(-1);
  check("the row links to /transcript/{id}", await visible(page.getByRole("heading", { level: 1, name: displayName }), TIMEOUT_MS), page.url());
  const segmentItems = page.locator("ol.segments > li");
  if (!check("the segments are shown", await visible(segmentItems.first(), TIMEOUT_MS))) throw new Error("no segments");

  // The transcript's segments as the API has them (same session), for times and order.
  const detail = await page.evaluate(async (transcriptId) => {
    const response = await fetch(`/api/v1/transcriptions/${transcriptId}`, { credentials: "include" });
    return response.json();
  }, id);
  const segments = detail.result?.segments ?? [];
  const duration = detail.result?.duration ?? seconds;
  const onScreen = (await segmentItems.locator(".segment-text").allTextContents()).map((t) => t.trim()).join(" ");
  const { errors, words: refWords, wer } = wordErrorRate(SCRIPT, onScreen);
  console.log(`# WER ${(wer * 100).toFixed(1)}% (${errors} errors / ${refWords} words), model ${model}`);
  console.log(`# script:     ${SCRIPT}`);
  console.log(`# transcript: ${onScreen}`);
  check(`the transcript matches the script (WER ≤ ${MAX_WER * 100}%)`, wer <= MAX_WER, `WER ${(wer * 100).toFixed(1)}%: "${onScreen}"`);
  check("it has several segments", segments.length >= 2 && (await segmentItems.count()) === segments.length, `${segments.length} segments`);
  const ordered = segments.every((s, i) => s.start < s.end && (i === 0 || s.start >= segments[i - 1].end - 0.001));
  const inside = segments.every((s) => s.start >= 0 && s.end <= duration + 0.5);
  check("segments are ordered, non-overlapping and inside the audio", ordered && inside, `${segments.map((s) => `${s.start}-${s.end}`).join(", ")} / ${duration} s`);

  // Play (muted) and watch the highlight follow the audio.
  const audio = page.getByTestId("transcript-audio");
  await page.waitForFunction(() => {
    const element = document.querySelector("[data-testid=transcript-audio]");
    return element?.src && element.readyState >= 1;
  }, undefined, { timeout: TIMEOUT_MS });
  const played = await audio.evaluate(async (element) => {
    element.muted = true;
    try {
      await element.play();
      return "playing";
    } catch (error) {
      return String(error);
    }
  });
  check("the player plays the audio", played === "playing", played);
  const highlights = [];
  const times = [];
  const watchUntil = Date.now() + Math.min(30_000, (duration + 3) * 1000);
  while (Date.now() < watchUntil) {
    const sample = await page.evaluate(() => ({
      time: document.querySelector("[data-testid=transcript-audio]")?.currentTime ?? 0,
      ended: document.querySelector("[data-testid=transcript-audio]")?.ended ?? false,
      active: document.querySelector('ol.segments > li[aria-current="true"]')?.getAttribute("data-segment-id") ?? null,
    }));
    times.push(sample.time);
    if (sample.active !== null && highlights.at(-1) !== sample.active) highlights.push(sample.active);
    if (sample.ended) break;
    await page.waitForTimeout(150);
  }
  check("the player's currentTime advances", Math.max(...times) > 2, `up to ${Math.max(...times).toFixed(2)} s`);
  check("the highlighted segment (aria-current) moves along", highlights.length >= 2, `segments highlighted in turn: ${highlights.join(" → ")}`);
  await shot("playing");

  // Click a later segment: the player jumps to its start.
  await audio.evaluate((element) => element.pause());
  const target = segments.at(-1);
  await page.locator(`ol.segments > li[data-segment-id="${target.id}"] .segment-text`).click();
  await page.waitForTimeout(300);
  const jumped = await audio.evaluate((element) => element.currentTime);
  const activeAfter = await page.locator('ol.segments > li[aria-current="true"]').getAttribute("data-segment-id").catch(() => null);
  check("clicking the last segment moves the player to its start", Math.abs(jumped - target.start) < 0.3 && activeAfter === String(target.id), `currentTime ${jumped.toFixed(2)} s, segment starts at ${target.start} s, highlighted ${activeAfter}`);

  // Exports (decision 0007): every format from the menu.
  const exported = await exportEachFormat(page, { check, timeout: 60_000 });
  console.log(`# exports: ${exported.map((e) => `${e.name} (${e.size} B)`).join(", ")}`);
  await shot("exported");

  // Re-run with another local model (docs/api.md): the page polls until the new result is in.
  const other = catalog.models?.find((m) => m.provider === "local" && m.available && m.id !== model && m.languages.includes("en"));
  if (other) {
    await page.getByRole("button", { name: "Re-run" }).click();
    const rerunForm = page.getByRole("form", { name: "Re-run transcription" });
    await rerunForm.waitFor({ timeout: TIMEOUT_MS });
    await chooseInSelect(page, rerunForm, "Model", other.name);
    await chooseInCombobox(page, rerunForm, "Language", "en");
    await rerunForm.getByRole("button", { name: "Re-run" }).click();
    const modelShown = page.locator(".transcript-meta dd").first();
    const rerunStarted = Date.now();
    const rerunDone = await page
      .waitForFunction(
        (otherId) => {
          const shown = document.querySelector(".transcript-meta dd")?.textContent;
          const running = document.querySelector(".transcript-status");
          return shown === otherId && !running && document.querySelectorAll("ol.segments > li").length > 0;
        },
        other.id,
        { timeout: TRANSCRIPTION_TIMEOUT_MS },
      )
      .then(() => true)
      .catch(() => false);
    const rerunText = (await segmentItems.locator(".segment-text").allTextContents()).map((t) => t.trim()).join(" ");
    const rerunWer = wordErrorRate(SCRIPT, rerunText).wer;
    console.log(`# re-run with ${other.id}: WER ${(rerunWer * 100).toFixed(1)}%: ${rerunText}`);
    check(`re-running with ${other.id} completes on the page without a reload`, rerunDone && (await page.evaluate(() => window.__noReload === true)), `model shown ${await modelShown.textContent()}, ${((Date.now() - rerunStarted) / 1000).toFixed(1)} s`);
    check(`and its transcript matches the script too (WER ≤ ${MAX_WER * 100}%)`, rerunWer <= MAX_WER, `WER ${(rerunWer * 100).toFixed(1)}%`);
  } else {
    console.log("# no second local model with English: not re-running");
  }

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`transcript: ${baseUrl} (mail catcher ${mailUrl}), ${email}, ${fileName}`));
