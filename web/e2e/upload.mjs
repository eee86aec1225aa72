#!/usr/bin/env node
// Browser acceptance of the upload screen (decision 0009) against a running stack with a mail
// catcher: sign in through the UI (as accounts.mjs), synthesize real speech (espeak-ng →
// WAV → ffmpeg → mp3), choose it with the file input on /dashboard, watch the progress bar
// reach 100%, see 'Processing…' and then the file ready with the start form; start a
// transcription and see the file listed in the table.
// Usage: node web/e2e/upload.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { checklist, launchBrowser, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, openJourneyPage, TIMEOUT_MS, PROCESSING_TIMEOUT_MS } from "./lib/journey.mjs";
import { chooseInCombobox } from "./lib/controls.mjs";
import { espeakNgSync, FFMPEG } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const { check, report } = checklist();
const email = randomEmail("upload");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-upload-"));
const fileName = `e2e-speech-${Date.now()}.mp3`;
const audioPath = path.join(workDir, fileName);
const browser = await launchBrowser();

try {
  const wavPath = path.join(workDir, "speech.wav");
  espeakNgSync(["-w", wavPath, "Hello from the browser test. This recording checks the upload screen, its progress bar, and the processing of the file."]);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wavPath, "-codec:a", "libmp3lame", "-b:a", "128k", audioPath]);
  const size = (await stat(audioPath)).size;
  check("espeak-ng and ffmpeg made a real mp3", size > 10_000, `${size} bytes`);

  const { context, page, pageErrors, shot } = await openJourneyPage(browser, { journey: "upload", screenshotDir });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  check("the dashboard shows 'Your Transcriptions'", await visible(page.getByRole("heading", { level: 1, name: "Your Transcriptions" }), TIMEOUT_MS));
  check("the dropzone is shown", await visible(page.getByTestId("dropzone"), TIMEOUT_MS));

  // Record every value the progress bar shows, however briefly, from inside the page.
  await page.evaluate(() => {
    const seen = [];
    window.__progressSeen = seen;
    const record = () => {
      // Only the upload's bar: the plan card has a progress bar of its own (free minutes used).
      for (const bar of document.querySelectorAll('[role="progressbar"][aria-label="Upload progress"]')) {
        const value = Number(bar.getAttribute("aria-valuenow"));
        if (seen.at(-1) !== value) seen.push(value);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] });
  });

  // Upload as over a real network (about 1 Mbit/s up, 150 ms latency), not loopback: the
  // bar then moves through its values and shows 100% while the server answers the PUT. On
  // loopback the PUT can finish within one frame and the page goes straight to 'Processing…'.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 150, downloadThroughput: -1, uploadThroughput: 128 * 1024 });
  await page.getByTestId("file-input").setInputFiles(audioPath);
  const bar = page.getByRole("progressbar", { name: "Upload progress" });
  check("choosing the file shows the upload progress bar", await visible(bar, TIMEOUT_MS));
  const processing = page.getByText("Processing…");
  const startForm = page.getByRole("form", { name: "Start transcription" });
  // The bar goes away when the upload is done; then 'Processing…' until the server is ready.
  // The throttled upload itself takes seconds, many more on a loaded machine.
  await processing.or(startForm).first().waitFor({ timeout: PROCESSING_TIMEOUT_MS }).catch(() => undefined);
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const progress = await page.evaluate(() => window.__progressSeen);
  check("the progress bar reached 100%", progress.includes(100), `values seen: ${progress.join(", ")}`);
  check("it moved through values between 0 and 100", progress.some((v) => v > 0 && v < 100), progress.join(", "));
  check("its values only went up", progress.every((v, i) => i === 0 || v >= progress[i - 1]), progress.join(", "));
  check("after the upload the file is 'Processing…' (or already ready)", (await processing.isVisible()) || (await startForm.isVisible()));
  await shot("processing");

  const ready = await visible(startForm, PROCESSING_TIMEOUT_MS);
  check("once processed the file is ready with the start form", ready);
  const readyLine = page.locator(".upload-status").getByText(/^Ready · /);
  check("it shows 'Ready · <duration>'", await visible(readyLine, TIMEOUT_MS), (await readyLine.textContent().catch(() => "")) ?? "");
  check("and names the file", await page.locator(".upload-file-name").getByText(fileName).isVisible());
  await shot("ready");

  // Start a transcription with the first available model: the file is then listed.
  const catalog = await page.evaluate(async () => (await fetch("/api/v1/models", { credentials: "include" })).json());
  const modelName = ((await startForm.getByRole("combobox", { name: "Model", exact: true }).textContent()) ?? "").trim();
  const chosen = catalog.models?.find((m) => m.name === modelName);
  const available = catalog.models?.filter((m) => m.available).length ?? 0;
  if (chosen?.available && chosen.languages.includes("en")) {
    const languageShown = await chooseInCombobox(page, startForm, "Language", "English");
    check("the language is chosen by typing its name in the searchable list", languageShown === "English (en)", languageShown);
    await startForm.getByRole("button", { name: "Start transcription" }).click();
    const row = page.locator("section.transcriptions table").getByText(fileName.replace(/\.mp3$/, ""), { exact: false });
    check("after starting, the file is listed in the transcriptions table", await visible(row.first(), TIMEOUT_MS));
    check("and the dropzone is back for the next file", await visible(page.getByTestId("dropzone"), TIMEOUT_MS));
    await shot("listed");
  } else {
    console.log(`# no available model with English (${available} available): not starting a transcription`);
  }

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`upload: ${baseUrl} (mail catcher ${mailUrl}), ${email}, ${fileName}`));
