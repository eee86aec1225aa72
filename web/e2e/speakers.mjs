#!/usr/bin/env node
// Browser journey of speakers (decision 0020) against a running stack with a mail catcher, the
// local Whisper engine and the diarizer's weights: sign in, upload a two-voice conversation
// (espeak-ng's en-us pitched down and its female variant pitched up), start it
// with "Identify speakers" on, open the transcript, see two speakers in colour with turn
// labels, rename "S1" in place, hide the other speaker, and download the vtt from the
// export menu: its cues carry <v Name>. Then reassign turns in the editor: one segment, then
// a selection of two, save, and see the edit in the history and after a reload; the RTTM
// export lists the diarizer's turns under the new name.
// Usage: node web/e2e/speakers.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CHROMIUM_ARGS, checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { journeyArgs, openJourneyPage, PROCESSING_TIMEOUT_MS, TIMEOUT_MS, transcriptionRow, waitForFinalStatus } from "./lib/journey.mjs";
import { chooseInCombobox, chooseInSelect } from "./lib/controls.mjs";
import { chromium } from "playwright-core";
import { FFMPEG, joinWavs, silenceWav, voicedSpeech } from "./lib/media-tools.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const NEW_NAME = "Alice Example";

const LINES = [
  ["low", "Good morning everyone, thanks for joining the weekly planning meeting today."],
  ["high", "Thanks. Before we start, can you tell me whether the customer reports are ready?"],
  ["low", "We finished the migration of the billing database last Thursday without any downtime."],
  ["high", "That is great news. Did anyone notice the slower queries on the dashboard afterwards?"],
];
const VOICES = { low: ["en-us", 160, -300], high: ["en-us+f4", 175, 200] };

const { check, report } = checklist();
const email = randomEmail("speakers");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-speakers-"));
const fileName = `e2e-speakers-${Date.now()}.mp3`;
const displayName = fileName.replace(/\.mp3$/, "");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });

try {
  // Two clearly different voices taking turns, 0.6 s apart.
  const gap = silenceWav(path.join(workDir, "gap.wav"), 0.6);
  const parts = LINES.flatMap(([voice, text], i) => {
    const [name, speed, cents] = VOICES[voice];
    return [voicedSpeech({ ffmpeg: FFMPEG, voice: name, speed, cents, text, raw: path.join(workDir, `u${i}-raw.wav`), out: path.join(workDir, `u${i}.wav`) }), gap];
  });
  const wav = joinWavs(parts, path.join(workDir, "conversation.wav"));
  const audioPath = path.join(workDir, fileName);
  execFileSync(FFMPEG, ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-codec:a", "libmp3lame", "-b:a", "128k", audioPath]);

  const { page, pageErrors, shot } = await openJourneyPage(browser, { journey: "speakers", screenshotDir, acceptDownloads: true, fullPage: true });

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

  const row = transcriptionRow(page, displayName);
  if (!check("after starting, the file is listed", await visible(row.first(), TIMEOUT_MS))) throw new Error("not listed");
  const { status, seconds } = await waitForFinalStatus(page, row);
  check("the transcription completes", status === "Completed", `${status}, ${seconds.toFixed(1)} s`);
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

  // The RTTM export: one SPEAKER line per turn, the renamed speaker as Alice_Example.
  await page.getByRole("button", { name: "Export" }).click();
  const [rttmDownload] = await Promise.all([page.waitForEvent("download", { timeout: 60_000 }), page.getByRole("menuitem", { name: "RTTM speaker turns (.rttm)" }).click()]);
  const rttm = (await readFile(await rttmDownload.path(), "utf8")).trim().split("\n");
  check(
    "the RTTM export lists both speakers' turns, the new name with _ for spaces",
    rttm.length >= 2 && rttm.every((line) => /^SPEAKER \S+ 1 \d+\.\d{3} \d+\.\d{3} <NA> <NA> \S+ <NA> <NA>$/.test(line)) && rttm.some((l) => l.includes(" Alice_Example ")) && rttm.some((l) => l.includes(" S2 ")),
    rttm.slice(0, 3).join(" | "),
  );

  // Reassign: one segment of S2 given to S1, then a selection (S2's next one and one of
  // S1's) given to S2; one save makes one revision.
  const segments = page.locator("ol.segments > li");
  const speakersNow = () => segments.evaluateAll((items) => items.map((item) => item.getAttribute("data-speaker")));
  const before = await speakersNow();
  const firstS2 = before.indexOf("S2");
  const nextS2 = before.indexOf("S2", firstS2 + 1);
  const anS1 = before.indexOf("S1");
  if (firstS2 < 0 || nextS2 < 0 || anS1 < 0) throw new Error(`not enough turns to reassign: ${before.join(",")}`);
  await segments.nth(firstS2).getByRole("checkbox", { name: `Select segment ${firstS2 + 1}` }).check();
  const bar = page.getByRole("region", { name: "Reassign speaker" });
  check("selecting a segment offers to give it to another speaker", await visible(bar.getByText("1 segment selected"), TIMEOUT_MS));
  // The bar closes once the segments are given away, so the option is clicked directly.
  const giveTo = async (name) => {
    await bar.getByRole("combobox", { name: "Give to", exact: true }).click();
    await page.getByRole("listbox").getByRole("option", { name, exact: true }).click();
    await bar.waitFor({ state: "hidden", timeout: TIMEOUT_MS });
  };
  await giveTo(NEW_NAME);
  const afterOne = await speakersNow();
  check("the segment now belongs to the renamed speaker, unsaved", afterOne[firstS2] === "S1" && (await visible(page.getByText("Unsaved edits"), TIMEOUT_MS)), afterOne.join(","));
  await segments.nth(nextS2).getByRole("checkbox", { name: `Select segment ${nextS2 + 1}` }).check();
  await segments.nth(anS1).getByRole("checkbox", { name: `Select segment ${anS1 + 1}` }).check();
  check("a selection of two segments", await visible(bar.getByText("2 segments selected"), TIMEOUT_MS));
  await giveTo("S2");
  const expected = afterOne.map((s, i) => (i === nextS2 || i === anS1 ? "S2" : s));
  check("the selection now belongs to S2", (await speakersNow()).join(",") === expected.join(","), (await speakersNow()).join(","));
  await page.getByRole("button", { name: "Save", exact: true }).click();
  check("saving the reassignment makes revision 2", await visible(page.getByText("Saved as revision 2"), TIMEOUT_MS));
  await page.getByRole("button", { name: "History" }).click();
  const revisionItems = page.getByRole("list", { name: "Revisions" }).locator("li");
  await revisionItems.nth(1).waitFor({ timeout: TIMEOUT_MS });
  const listed = (await revisionItems.allTextContents()).map((t) => t.replace(/\s+/g, " "));
  const changedCount = expected.filter((s, i) => s !== before[i]).length;
  check(
    "the history shows the reassignment as an edit over the original",
    listed.length === 2 && /Revision 2.*Edit/.test(listed[0]) && listed[0].includes(`${changedCount} edited`) && /Revision 1.*Original/.test(listed[1]),
    listed.join(" | "),
  );
  await page.reload();
  await segments.first().waitFor({ timeout: TIMEOUT_MS });
  check("after a reload the segments keep their new speakers", (await speakersNow()).join(",") === expected.join(","), (await speakersNow()).join(","));
  await shot("reassigned");

  check("no uncaught page errors", pageErrors.length === 0, pageErrors.join(" | "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser.close();
  await rm(workDir, { recursive: true, force: true });
}

process.exit(report(`speakers: ${baseUrl} (mail catcher ${mailUrl}), ${email}, ${fileName}`));
