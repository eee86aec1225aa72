#!/usr/bin/env node
// Browser journey of the voice library (decision 0031) against a running stack with a mail
// catcher, the local Whisper engine and the diarizer's weights: sign in, turn the library on
// in Account Settings, transcribe a two-voice conversation with "Identify speakers", name
// both speakers, then transcribe a second recording of the same two voices (other words,
// the other voice first) and see both names come back, with "recognised" and the undo; the
// vtt carries the names; Account Settings lists the two voices; undoing one match brings
// its S-id back. Another user's transcription of the same audio is checked in
// services/transcription/test/voices.test.ts.
// Usage: node web/e2e/voices.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { journeyArgs, openJourneyPage, PROCESSING_TIMEOUT_MS, TIMEOUT_MS, transcriptionRow, waitForFinalStatus } from "./lib/journey.mjs";
import { CHROMIUM_ARGS, checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { chooseInCombobox, chooseInSelect } from "./lib/controls.mjs";
import { chromium } from "playwright-core";
import { FFMPEG, joinWavs, silenceWav, voicedSpeech } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const LOW = "Alex Example";
const HIGH = "Blair Example";

const VOICES = { low: ["en-us", 160, -300], high: ["en-us+f4", 175, 200] };
const FIRST = [
  ["low", "Good morning everyone, thanks for joining the weekly planning meeting today."],
  ["high", "Thanks. Before we start, can you tell me whether the customer reports are ready?"],
  ["low", "We finished the migration of the billing database last Thursday without any downtime."],
  ["high", "That is great news. Did anyone notice the slower queries on the dashboard afterwards?"],
];
const SECOND = [
  ["high", "Let us start with the budget, because the finance team asked for the numbers on Friday."],
  ["low", "The hosting costs went down a little after we moved the workers to the new machines."],
  ["high", "Good. And the support queue, is it still growing every week like last month?"],
  ["low", "No, it is shorter now, the new help pages answer most of the common questions."],
];

const { check, report } = checklist();
const email = randomEmail("voices");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-voices-"));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });

/** An mp3 of the lines, each voice's utterances 0.6 s apart. */
function conversation(lines, name) {
  const gap = silenceWav(path.join(workDir, "gap.wav"), 0.6);
  const parts = lines.flatMap(([voice, text], i) => {
    const [v, speed, cents] = VOICES[voice];
    return [voicedSpeech({ ffmpeg: FFMPEG, voice: v, speed, cents, text, raw: path.join(workDir, `${name}-${i}-raw.wav`), out: path.join(workDir, `${name}-${i}.wav`) }), gap];
  });
  const wav = joinWavs(parts, path.join(workDir, `${name}.wav`));
  const mp3 = path.join(workDir, `${name}.mp3`);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-codec:a", "libmp3lame", "-b:a", "128k", mp3]);
  return mp3;
}

/** Uploads on the dashboard, starts with two speakers, waits for Completed, opens the transcript. */
async function transcribe(page, audioPath) {
  const displayName = path.basename(audioPath, ".mp3");
  // The sign-in link lands on the server's public origin (localhost); the session cookie is there.
  await page.goto(`${new URL(page.url()).origin}/dashboard`);
  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  if (!check(`${displayName}: uploaded and processed`, await visible(startForm, PROCESSING_TIMEOUT_MS))) throw new Error("the file was not processed");
  const catalog = await page.evaluate(async () => (await fetch("/api/v1/models", { credentials: "include" })).json());
  const tiny = catalog.models?.find((m) => m.id === "whisper-tiny.en" && m.available);
  if (tiny) await chooseInSelect(page, startForm, "Model", tiny.name);
  await chooseInCombobox(page, startForm, "Language", "English");
  await startForm.getByLabel("Identify speakers").check();
  await startForm.getByLabel("Min speakers").fill("2");
  await startForm.getByLabel("Max speakers").fill("2");
  await startForm.getByRole("button", { name: "Start transcription" }).click();
  const row = transcriptionRow(page, displayName);
  if (!check(`${displayName}: listed`, await visible(row.first(), TIMEOUT_MS))) throw new Error("not listed");
  const { status, seconds } = await waitForFinalStatus(page, row);
  check(`${displayName}: completes`, status === "Completed", `${status}, ${seconds.toFixed(1)} s`);
  if (status !== "Completed") throw new Error(`the transcription ended '${status}'`);
  await row.first().getByRole("link").click();
  await page.waitForURL((url) => url.pathname.startsWith("/transcript/"), { timeout: TIMEOUT_MS });
  const panel = page.getByLabel("Speakers", { exact: true });
  if (!check(`${displayName}: the speaker panel shows`, await visible(panel, TIMEOUT_MS))) throw new Error("no speaker panel");
  return panel;
}

/** The name on the first segment whose text contains the words. */
async function nameOn(page, words) {
  const segment = page.locator("ol.segments > li").filter({ hasText: words }).first();
  return ((await segment.locator(".speaker-tag").first().textContent().catch(() => "")) ?? "").trim();
}

try {
  const first = conversation(FIRST, `e2e-voices-one-${Date.now()}`);
  const second = conversation(SECOND, `e2e-voices-two-${Date.now()}`);
  const { page, pageErrors, shot } = await openJourneyPage(browser, { journey: "voices", screenshotDir, acceptDownloads: true, fullPage: true });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/account", check, timeout: TIMEOUT_MS });
  const section = page.getByTestId("account-voices");
  const toggle = section.getByRole("switch", { name: "Remember the voices of speakers I name" });
  if (!check("Account Settings has the voice library switch, off by default", (await visible(toggle, TIMEOUT_MS)) && !(await toggle.isChecked()))) throw new Error("no switch");
  check("with a plain explanation (a voice print, never the audio)", (await section.textContent())?.includes("never the audio") ?? false);
  // The switch follows the server: it turns once PUT /api/v1/voices/settings answers.
  await toggle.click();
  check("the library turns on", await visible(section.getByText("No saved voices yet."), TIMEOUT_MS));

  // First recording: the low voice speaks first (S1), the high one second (S2); name both.
  let panel = await transcribe(page, first);
  const ids = await panel.locator(".speaker-row").evaluateAll((items) => items.map((item) => item.getAttribute("data-speaker")));
  check("two speakers were found: S1 and S2", ids.join(",") === "S1,S2", ids.join(","));
  for (const [id, name] of [["S1", LOW], ["S2", HIGH]]) {
    await panel.getByRole("button", { name: `Rename speaker ${id}` }).click();
    await panel.getByLabel("Speaker name").fill(name);
    await panel.getByRole("button", { name: "Save" }).click();
    check(`${id} renamed to ${name}`, await visible(panel.locator(".speaker-name", { hasText: name }), TIMEOUT_MS));
  }
  await shot("named");

  // Second recording of the same voices, the high voice first: the names come back by voice.
  panel = await transcribe(page, second);
  check(`the high voice is recognised as ${HIGH}`, await visible(panel.locator(".speaker-name", { hasText: HIGH }), TIMEOUT_MS));
  check(`the low voice is recognised as ${LOW}`, await visible(panel.locator(".speaker-name", { hasText: LOW }), TIMEOUT_MS));
  check(`the finance line (high voice) is labelled ${HIGH}`, (await nameOn(page, "finance")) === HIGH, await nameOn(page, "finance"));
  check(`the hosting line (low voice) is labelled ${LOW}`, (await nameOn(page, "hosting")) === LOW, await nameOn(page, "hosting"));
  const badges = (await panel.getByTestId("speaker-recognised").allTextContents()).map((t) => t.trim());
  check("both show 'recognised' with a confidence", badges.length === 2 && badges.every((b) => /^recognised \d+%$/.test(b)), badges.join(", "));
  await shot("recognised");

  // Every export carries the names.
  await page.getByRole("button", { name: "Export" }).click();
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 60_000 }), page.getByRole("menuitem", { name: "WebVTT (.vtt)" }).click()]);
  const vtt = await readFile(await download.path(), "utf8");
  check("the vtt has both names as voice spans", vtt.includes(`<v ${LOW}>`) && vtt.includes(`<v ${HIGH}>`), vtt.split("\n").slice(0, 8).join(" | "));

  // Undo a match: the speaker is anonymous again.
  await panel.getByRole("button", { name: `Not ${HIGH}: undo the match` }).click();
  check("undoing a match brings the S-id back", await visible(panel.locator('.speaker-row[data-speaker="S1"] .speaker-name', { hasText: /^S1$/ }), TIMEOUT_MS));
  check(`and ${LOW} stays`, await visible(panel.locator(".speaker-name", { hasText: LOW }), TIMEOUT_MS));

  // Account Settings lists the two saved voices.
  await page.goto(`${new URL(page.url()).origin}/account`);
  const voices = page.getByTestId("account-voices").getByTestId("voice");
  await visible(voices.first(), TIMEOUT_MS);
  const listed = (await voices.allTextContents()).map((t) => t.trim());
  check("Account Settings lists both voices", listed.some((t) => t.startsWith(LOW)) && listed.some((t) => t.startsWith(HIGH)), listed.join(" | "));
  await shot("settings");

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`voices: ${baseUrl} (mail catcher ${mailUrl}), ${email}`));
