#!/usr/bin/env node
// Browser journey of live transcription through a network that drops (decision 0037): the
// page talks to the stack through a TCP relay of this script's own, which the journey cuts
// for a few seconds mid-session (every connection destroyed, new ones refused) while
// Chromium's fake microphone goes on playing speech. The page says it is reconnecting and
// that the audio is kept, resumes the session when the network is back, and catches up:
// the settled words from before the drop stay on the page and in the saved transcription,
// words come again after it, and the stored recording is as long as the time it was
// recording (the audio of the gap was buffered and sent, not lost).
// Usage: node web/e2e/live-network.mjs <base-url> <mail-catcher-url> [screenshot-dir]
// ffmpeg and espeak-ng: lib/media-tools.mjs. CHROMIUM_PATH overrides the browser binary.
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { journeyArgs, openJourneyPage, TIMEOUT_MS } from "./lib/journey.mjs";
import { checklist, randomEmail, signInThroughUi, visible } from "./lib/sign-in.mjs";
import { launchWithFakeMicrophone } from "./lib/fake-microphone.mjs";

const { baseUrl, mailUrl, screenshotDir } = journeyArgs(import.meta.url);

const WORDS_TIMEOUT_MS = Number(process.env.E2E_LIVE_WORDS_TIMEOUT_MS ?? 60_000);
const OFFLINE_MS = 4_000;
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";

/** A TCP relay to `target` whose network can be cut (every connection destroyed, new ones refused) and restored. */
async function relay(target) {
  const sockets = new Set();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname === "localhost" ? "127.0.0.1" : target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  // Every local address (IPv6 and IPv4): the page may reach "localhost" by either.
  await new Promise((resolve) => server.listen(0, resolve));
  return {
    port: server.address().port,
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    close() {
      this.cut();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const { check, report } = checklist();
const email = randomEmail("live-net");
const workDir = await mkdtemp(path.join(os.tmpdir(), "e2e-live-net-"));
let browser;
let network;

try {
  browser = await launchWithFakeMicrophone(workDir, SCRIPT);
  const { context, page, pageErrors, shot } = await openJourneyPage(browser, { journey: "live-network", screenshotDir, contextOptions: { permissions: ["microphone"] } });
  // When the microphone opened (the capture starts right after): the recording's length is measured from it.
  await context.addInitScript(() => {
    const open = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (constraints) => {
      const stream = await open(constraints);
      window.__microphoneOpenedAt = Date.now();
      return stream;
    };
  });

  await signInThroughUi(page, { baseUrl, mailUrl, email, startPath: "/dashboard", check, timeout: TIMEOUT_MS });
  // From here on through the relay, on the same host name: cookies do not depend on the port,
  // and the page's origin is the relay's (the BFF's same-origin check compares Origin with
  // Host, both the relay's).
  const product = new URL(page.url());
  network = await relay(product);
  const origin = `${product.protocol}//${product.hostname}:${network.port}`;
  await page.goto(`${origin}/live`);
  check("/live opens through the relay", await visible(page.getByRole("heading", { level: 1, name: "Live transcription" }), TIMEOUT_MS));

  const settledText = () => page.locator(".live-word-settled").allTextContents().then((words) => words.join("").trim());
  await page.getByRole("button", { name: "Start live transcription" }).click();
  check("the session goes live", await visible(page.getByText("Live", { exact: true }), 120_000));
  const liveAt = Date.now();

  let before = "";
  while (Date.now() - liveAt < WORDS_TIMEOUT_MS && !/committee/i.test(before)) {
    await page.waitForTimeout(250);
    before = await settledText();
  }
  check("words settle before the drop", /committee/i.test(before), `"${before}"`);

  network.cut();
  const reconnecting = page.getByText("Reconnecting… (the audio is kept)");
  check("the page says it is reconnecting and keeps the audio", await visible(reconnecting, 10_000));
  await shot("reconnecting");
  await page.waitForTimeout(OFFLINE_MS);
  network.restore();
  const back = await reconnecting.waitFor({ state: "hidden", timeout: 60_000 }).then(() => true, () => false);
  check("the session resumes once the network is back", back && (await visible(page.getByText("Live", { exact: true }), TIMEOUT_MS)));
  const kept = await settledText();
  check("the words settled before the drop are still there", kept.startsWith(before), `before: "${before}" now: "${kept}"`);

  // Catching up: the audio of the gap is sent, and words settle after the drop.
  let after = kept;
  const resumedAt = Date.now();
  while (Date.now() - resumedAt < WORDS_TIMEOUT_MS && after.length <= kept.length + 20) {
    await page.waitForTimeout(250);
    after = await settledText();
  }
  check("words settle again after the drop", after.startsWith(before) && after.length > kept.length + 20, `"${after.slice(kept.length)}"`);
  await shot("caught-up");

  const stopAt = Date.now();
  await page.getByRole("button", { name: "Stop" }).click();
  const microphoneOpenedAt = await page.evaluate(() => window.__microphoneOpenedAt);
  const saved = page.getByRole("link", { name: "open the transcript" });
  check("stop saves the recording as a transcription", await visible(saved, 180_000));
  const id = (await saved.getAttribute("href"))?.split("/").at(-1);

  const api = (url) => page.evaluate(async (u) => (await fetch(u, { credentials: "include" })).json(), url);
  const transcription = await api(`/api/v1/transcriptions/${id}`);
  const live = String(transcription.live_text ?? "");
  const words = (text) => text.toLowerCase().match(/[a-z']+/g) ?? [];
  const missing = words(before).filter((word) => !words(live).includes(word));
  check(
    "nothing settled is lost: the saved live text holds every word settled before the drop",
    transcription.result !== null || (live.length > 0 && missing.length === 0),
    transcription.result !== null ? "(the batch pass already replaced it)" : `missing: ${missing.join(" ")}`,
  );
  const file = await api(`/api/v1/files/${transcription.audio_file.file_id}`);
  // Without the gap's audio the recording would be OFFLINE_MS short of the time it recorded
  // (from the microphone opening, less the audio graph's start, to the stop).
  const recorded = (stopAt - microphoneOpenedAt) / 1000;
  check(
    "the recording holds the audio captured while the network was down",
    file.duration >= recorded - 1.5 && file.duration <= recorded + 1,
    `${Number(file.duration).toFixed(1)} s stored, ${recorded.toFixed(1)} s recorded, ${OFFLINE_MS / 1000} s offline`,
  );
  const unexpected = pageErrors.filter((message) => !/fetch|network/i.test(message));
  check("no page errors (besides requests the drop cut)", unexpected.length === 0, unexpected.join("; "));
} catch (error) {
  check("the journey ran to the end", false, error?.message ?? String(error));
} finally {
  await browser?.close();
  await network?.close();
  await rm(workDir, { recursive: true, force: true });
}
process.exit(report("live transcription through a dropped network"));
