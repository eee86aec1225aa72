#!/usr/bin/env node
// Browser journey of the transcript editor (decision 0021) against a running stack with a mail
// catcher and the local Whisper engine: real speech (espeak-ng) uploaded and transcribed
// through the UI; then correct a word and split a segment on the page, save, reload: the
// corrected word is there, carries a time inside the original segment's span and
// highlights when the player is there; the srt and vtt exports contain it inside that
// span; the history lists the original and the edit; restoring the original brings it
// back. Two tabs: the second one's save gets the conflict dialog with its text still on
// screen, and "Overwrite with mine" saves it.
// Usage: node web/e2e/editor.mjs <base-url> <mail-catcher-url> [screenshot-dir]
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, PROCESSING_TIMEOUT_MS, TIMEOUT_MS, transcriptionRow, waitForFinalStatus } from "./lib/journey.mjs";
import { chooseInCombobox } from "./lib/controls.mjs";
import { espeakNgSync, FFMPEG } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);
const CORRECTION = "Wednesday";

const SENTENCES = [
  "The committee met on Tuesday morning to review the budget for the new library.",
  "Please send the quarterly report to the finance team before Friday, and we will discuss the results next week.",
];

const { check, report } = checklist();
const email = randomEmail("editor");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-editor-"));
const fileName = `e2e-editor-${Date.now()}.mp3`;
const displayName = fileName.replace(/\.mp3$/, "");
const audioPath = path.join(workDir, fileName);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [...CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"],
});

/** Subtitle cues as [startSeconds, endSeconds, text]. */
function cues(text) {
  const out = [];
  const time = (t) => {
    const [h, m, s] = t.replace(",", ".").split(":");
    return Number(h) * 3600 + Number(m) * 60 + Number(s);
  };
  for (const block of text.replace(/\r/g, "").split(/\n\n+/)) {
    const line = block.split("\n").find((l) => l.includes("-->"));
    if (!line) continue;
    const [from, to] = line.split("-->").map((p) => p.trim().split(" ")[0]);
    out.push([time(from), time(to), block.split("\n").slice(block.split("\n").indexOf(line) + 1).join(" ")]);
  }
  return out;
}

try {
  const wavPath = path.join(workDir, "speech.wav");
  espeakNgSync(["-m", "-w", wavPath, `<speak>${SENTENCES.join("<break time='1500ms'/>")}</speak>`]);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wavPath, "-codec:a", "libmp3lame", "-b:a", "128k", audioPath]);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  const shot = async (name, p = page) => {
    if (!screenshotDir) return;
    await mkdir(screenshotDir, { recursive: true });
    await p.screenshot({ path: path.join(screenshotDir, `web-editor-${name}.png`), fullPage: true });
  };
  const api = (p, method, url, body) =>
    p.evaluate(
      async ([m, u, b]) => {
        const response = await fetch(u, { method: m, credentials: "include", headers: b ? { "content-type": "application/json" } : {}, body: b ? JSON.stringify(b) : undefined });
        return { status: response.status, body: await response.json().catch(() => null) };
      },
      [method, url, body],
    );

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  await page.getByTestId("file-input").setInputFiles(audioPath);
  const startForm = page.getByRole("form", { name: "Start transcription" });
  if (!check("the upload is processed and the start form shown", await visible(startForm, PROCESSING_TIMEOUT_MS))) throw new Error("not processed");
  await chooseInCombobox(page, startForm, "Language", "English");
  await startForm.getByRole("button", { name: "Start transcription" }).click();
  const row = transcriptionRow(page, displayName);
  await row.first().waitFor({ timeout: TIMEOUT_MS });
  const { status, seconds } = await waitForFinalStatus(page, row);
  if (!check("the transcription completes", status === "Completed", `${status}, ${seconds.toFixed(0)} s`)) throw new Error(status);
  await row.first().getByRole("link").click();
  await page.waitForURL((url) => url.pathname.startsWith("/transcript/"), { timeout: TIMEOUT_MS });
  const id = new URL(page.url()).pathname.split("/").at(-1);
  const items = page.locator("ol.segments > li");
  await items.first().waitFor({ timeout: TIMEOUT_MS });

  const original = (await api(page, "GET", `/api/v1/transcriptions/${id}`)).body.result;
  check("the engine's result is revision 1 with words and several segments", original.revision === 1 && original.segments.length >= 2 && original.segments.every((s) => s.words?.length), `${original.segments.length} segments`);
  const first = original.segments[0];
  // The word to correct: one the script has in the first sentence, as the engine heard it.
  const targetIndex = Math.min(4, first.words.length - 1);
  const target = first.words[targetIndex];
  const correctedText = first.words.map((w, i) => (i === targetIndex ? CORRECTION : w.word)).join(" ");

  // Correct a word in segment 1.
  await items.nth(0).getByRole("button", { name: "Edit segment 1" }).click();
  const box1 = page.getByRole("textbox", { name: "Segment 1 text" });
  await box1.fill(correctedText);
  await items.nth(0).getByRole("button", { name: "Done" }).click();
  // Split segment 2 at a word boundary near its middle.
  await items.nth(1).getByRole("button", { name: "Edit segment 2" }).click();
  const box2 = page.getByRole("textbox", { name: "Segment 2 text" });
  const text2 = await box2.inputValue();
  const cut = text2.indexOf(" ", Math.floor(text2.length / 2));
  await box2.evaluate((element, at) => {
    element.focus();
    element.setSelectionRange(at, at);
  }, cut);
  await items.nth(1).getByRole("button", { name: "Split at cursor" }).click();
  check("the split shows one more segment before saving", (await items.count()) === original.segments.length + 1, `${await items.count()} items`);
  await shot("edited");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  check("saving says so", await visible(page.getByText("Saved as revision 2"), TIMEOUT_MS));

  // Reload: the correction is there, as a word of its own with a time.
  await page.reload();
  await items.first().waitFor({ timeout: TIMEOUT_MS });
  const saved = (await api(page, "GET", `/api/v1/transcriptions/${id}`)).body.result;
  const word = saved.segments[0].words.find((w) => w.word === CORRECTION);
  check("after a reload the corrected word is on the page", await visible(page.locator(".word", { hasText: CORRECTION }).first(), TIMEOUT_MS));
  check("the save made revision 2 with one more segment", saved.revision === 2 && saved.segments.length === original.segments.length + 1, `revision ${saved.revision}, ${saved.segments.length} segments`);
  check(
    "the corrected word has the misrecognised word's time, inside the original segment",
    word && word.start === target.start && word.end === target.end && word.start >= first.start && word.end <= first.end,
    word ? `${word.start}-${word.end} (was ${target.word} ${target.start}-${target.end}; segment ${first.start}-${first.end})` : "missing",
  );
  // Play there: the corrected word highlights.
  await page.waitForFunction(() => document.querySelector("[data-testid=transcript-audio]")?.readyState >= 1, undefined, { timeout: TIMEOUT_MS });
  await page.locator(".word", { hasText: CORRECTION }).first().click();
  const audio = page.getByTestId("transcript-audio");
  await audio.evaluate(async (element) => {
    element.muted = true;
    await element.play().catch(() => undefined);
  });
  const highlighted = await page
    .waitForFunction((w) => document.querySelector(".word-active")?.textContent === w, CORRECTION, { timeout: 5_000, polling: 20 })
    .then(() => true)
    .catch(() => false);
  await audio.evaluate((element) => element.pause());
  check("clicking the corrected word plays from there and highlights it", highlighted, `currentTime ${(await audio.evaluate((e) => e.currentTime)).toFixed(2)}`);
  await shot("saved");

  // Exports: srt and vtt have it, inside the original segment's span.
  for (const format of ["srt", "vtt"]) {
    const created = await api(page, "POST", `/api/v1/transcriptions/${id}/export`, { format });
    const text = await page.evaluate(async (url) => (await fetch(url)).text(), created.body?.download_url);
    const cue = cues(text).find((c) => c[2].includes(CORRECTION));
    check(`the ${format} export has the correction inside the original segment's span`, cue && cue[0] >= first.start - 0.001 && cue[1] <= first.end + 0.001, cue ? `${cue[0]}-${cue[1]} vs ${first.start}-${first.end}` : text.slice(0, 200));
  }

  // History: the original and the edit; restore the original.
  await page.getByRole("button", { name: "History" }).click();
  const revisions = page.getByRole("list", { name: "Revisions" }).locator("li");
  await revisions.first().waitFor({ timeout: TIMEOUT_MS });
  const listed = (await revisions.allTextContents()).map((t) => t.replace(/\s+/g, " "));
  check("the history lists the edit and the original", listed.length === 2 && /Revision 2.*Edit/.test(listed[0]) && /Revision 1.*Original/.test(listed[1]), listed.join(" | "));
  await revisions.nth(1).getByRole("button", { name: "Restore" }).click();
  check("restoring says so", await visible(page.getByText("Revision 1 restored"), TIMEOUT_MS));
  const restoredText = (await items.locator(".segment-text").allTextContents()).join(" ");
  check("the original text is back", !restoredText.includes(CORRECTION) && restoredText.includes(target.word) && (await items.count()) === original.segments.length, restoredText);
  await shot("restored");

  // Two tabs on revision 3: the first saves, the second gets the conflict and keeps its text.
  const second = await context.newPage();
  second.on("pageerror", (error) => pageErrors.push(error.message));
  // Same origin as the first tab (the sign-in may have landed on another host name for the same server).
  await second.goto(`${new URL(page.url()).origin}/transcript/${id}`);
  const items2 = second.locator("ol.segments > li");
  await items2.first().waitFor({ timeout: TIMEOUT_MS });
  // The second tab starts typing on revision 3 before the first one saves.
  await items2.nth(0).getByRole("button", { name: "Edit segment 1" }).click();
  await second.getByRole("textbox", { name: "Segment 1 text" }).fill(`${first.text.trim()} beta`);
  await items.nth(0).getByRole("button", { name: "Edit segment 1" }).click();
  await page.getByRole("textbox", { name: "Segment 1 text" }).fill(`${first.text.trim()} alpha`);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Saved as revision 4").waitFor({ timeout: TIMEOUT_MS });
  await second.getByRole("button", { name: "Save", exact: true }).click();
  const dialog = second.getByRole("dialog", { name: "This transcript changed in the meantime" });
  check("the second tab's save gets the conflict dialog", await visible(dialog, TIMEOUT_MS));
  await shot("conflict", second);
  // The modal hides the page from the accessibility tree, so the field is found by its element.
  const kept = await second.locator('textarea[aria-label="Segment 1 text"]').inputValue().catch(() => "");
  check("and its typed text is still on screen", kept.endsWith("beta"), kept);
  await dialog.getByRole("button", { name: "Overwrite with mine" }).click();
  check("overwriting saves it as revision 5", await visible(second.getByText("Saved as revision 5"), TIMEOUT_MS));
  const final = (await api(second, "GET", `/api/v1/transcriptions/${id}`)).body.result;
  check("the server has the second tab's text", final.revision === 5 && final.segments[0].text.endsWith("beta"), final.segments[0].text);

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`editor: ${baseUrl} (mail catcher ${mailUrl}), ${email}, ${fileName}`));
