// Chromium whose fake microphone plays speech (--use-file-for-fake-audio-capture), for the
// live journeys.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { chromium } from "playwright-core";
import { espeakNgSync, FFMPEG } from "./media-tools.mjs";
import { CHROMIUM_ARGS } from "./sign-in.mjs";

/**
 * Launches Chromium with a microphone that loops `script` spoken by espeak-ng, then two
 * seconds of silence (96000 samples at 48 kHz; pad_len, not pad_dur, which the npm
 * package's older ffmpeg lacks). The recordings are written in `workDir`.
 */
export async function launchWithFakeMicrophone(workDir, script) {
  const raw = path.join(workDir, "raw.wav");
  const wavPath = path.join(workDir, "speech.wav");
  espeakNgSync(["-v", "en-us", "-s", "160", "-w", raw, script]);
  execFileSync(FFMPEG, ["-nostdin", "-v", "error", "-y", "-i", raw, "-af", "aresample=48000,apad=pad_len=96000", "-ar", "48000", "-ac", "1", wavPath]);
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...CHROMIUM_ARGS, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${wavPath}`, "--autoplay-policy=no-user-gesture-required"],
  });
}
