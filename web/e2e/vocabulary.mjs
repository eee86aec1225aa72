#!/usr/bin/env node
// Browser journey of the vocabulary (decision 0029) against a running stack with a mail
// catcher and the local Whisper engine: sign in, open Account Settings, type a vocabulary
// with a "sounds like" spelling, save it, see it again after a reload and export it as a
// text file; then upload speech (espeak-ng) that says the misheard spelling, start it with
// a term for this file only and "Use my vocabulary" on, and find the term in the transcript.
// Usage: node web/e2e/vocabulary.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { journeyArgs, openJourneyPage, PROCESSING_TIMEOUT_MS, TIMEOUT_MS, transcriptionRow, waitForFinalStatus } from "./lib/journey.mjs";
import { CHROMIUM_ARGS, checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { chooseInCombobox, chooseInSelect } from "./lib/controls.mjs";
import { chromium } from "playwright-core";
import { FFMPEG, voicedSpeech } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const SCRIPT = "We moved the recordings over to the other eye link yesterday afternoon.";
const VOCABULARY = "EyeLink | eye link, I link, eyelink\nReal Reaction";

const { check, report } = checklist();
const email = randomEmail("vocabulary");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-vocabulary-"));
const fileName = `e2e-vocabulary-${Date.now()}.mp3`;
const displayName = fileName.replace(/\.mp3$/, "");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });

try {
  const wav = voicedSpeech({ ffmpeg: FFMPEG, voice: "en-us", speed: 150, text: SCRIPT, raw: path.join(workDir, "raw.wav"), out: path.join(workDir, "speech.wav") });
  const audioPath = path.join(workDir, fileName);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-codec:a", "libmp3lame", "-b:a", "128k", audioPath]);

  const { page, pageErrors, shot } = await openJourneyPage(browser, { journey: "vocabulary", screenshotDir, acceptDownloads: true, fullPage: true });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/account", check, timeout: TIMEOUT_MS });
  const section = page.getByTestId("account-vocabulary");
  if (!check("Account Settings has a Vocabulary section", await visible(section, TIMEOUT_MS))) throw new Error("no vocabulary section");
  const terms = section.getByLabel("Terms");
  await terms.fill("x".repeat(101));
  await section.getByRole("button", { name: "Save vocabulary" }).click();
  check("a term over the limit is refused with the server's reason", await visible(section.getByText(/too long \(max 100 characters\)/), TIMEOUT_MS));
  await terms.fill(VOCABULARY);
  await section.getByRole("button", { name: "Save vocabulary" }).click();
  check("saving says how many terms were saved", await visible(page.getByText("Vocabulary saved (2 terms)"), TIMEOUT_MS));
  await page.reload();
  const reloaded = page.getByTestId("account-vocabulary").getByLabel("Terms");
  await visible(reloaded, TIMEOUT_MS);
  await page.waitForFunction((expected) => document.querySelector('[data-testid="account-vocabulary"] textarea')?.value === expected, VOCABULARY, { timeout: TIMEOUT_MS }).catch(() => {});
  check("after a reload the vocabulary is still there", (await reloaded.inputValue()) === VOCABULARY, await reloaded.inputValue());
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: TIMEOUT_MS }), page.getByTestId("account-vocabulary").getByRole("button", { name: "Export" }).click()]);
  const exported = await readFile(await download.path(), "utf8");
  check("Export downloads the same list as a text file", exported.trim() === VOCABULARY, exported);
  await shot("saved");

  // The sign-in link lands on the server's public origin (localhost); the session cookie is there.
  await page.goto(`${new URL(page.url()).origin}/dashboard`);
  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  if (!check("once uploaded and processed, the start form is shown", await visible(startForm, PROCESSING_TIMEOUT_MS))) throw new Error("the file was not processed");
  const catalog = await page.evaluate(async () => (await fetch("/api/v1/models", { credentials: "include" })).json());
  const tiny = catalog.models?.find((m) => m.id === "whisper-tiny.en" && m.available);
  if (tiny) await chooseInSelect(page, startForm, "Model", tiny.name);
  await chooseInCombobox(page, startForm, "Language", "English");
  check("the start form offers the user's vocabulary, on", await startForm.getByLabel(/Use my vocabulary \(2 terms\)/).isChecked().catch(() => false));
  await startForm.getByLabel("Terms for this file").fill("recordings, yesterday afternoon");
  await startForm.getByRole("button", { name: "Start transcription" }).click();

  const row = transcriptionRow(page, displayName);
  if (!check("after starting, the file is listed", await visible(row.first(), TIMEOUT_MS))) throw new Error("not listed");
  const { status, seconds } = await waitForFinalStatus(page, row);
  check("the transcription completes", status === "Completed", `${status}, ${seconds.toFixed(1)} s`);
  if (status !== "Completed") throw new Error(`the transcription ended '${status}'`);
  const list = await page.evaluate(async () => (await fetch("/api/v1/transcriptions?limit=10", { credentials: "include" })).json());
  const mine = list.transcriptions.find((t) => t.display_name.startsWith(displayName));
  if (!mine) throw new Error(`${displayName} is not in the list: ${list.transcriptions.map((t) => t.display_name).join(", ")}`);
  const detail = await page.evaluate(async (tid) => (await fetch(`/api/v1/transcriptions/${tid}`, { credentials: "include" })).json(), mine.id);
  await row.first().getByRole("link").click();
  await page.waitForURL((url) => url.pathname.startsWith("/transcript/"), { timeout: TIMEOUT_MS });
  check("the transcript spells the term as the vocabulary does", await visible(page.locator("ol.segments").getByText(/EyeLink/), TIMEOUT_MS), detail.result?.text);
  check("no other vocabulary term was inserted", !(detail.result?.text ?? "").includes("Real Reaction"), detail.result?.text);
  await shot("transcript");

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`vocabulary: ${baseUrl} (mail catcher ${mailUrl}), ${email}, ${fileName}`));
