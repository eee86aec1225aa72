import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledPath, chooseTool, chooseTools, MissingToolError } from "../src/processing/ffmpeg-binaries.js";
import { probe, transcodeToProcessed, type FfmpegTools } from "../src/processing/ffmpeg.js";
import { ffmpegPath } from "../src/testing/tools.js";
import { makeAcceptedFixtures, type AcceptedKind, type Fixture } from "./fixtures.js";

const run = promisify(execFile);

/**
 * The static ffmpeg/ffprobe from the npm packages (decision 0019) must decode every type
 * an upload may have, through the very probe and transcode media runs: a machine without
 * a system FFmpeg depends on them.
 */
describe("bundled ffmpeg and ffprobe", () => {
  let dir: string;
  let bundled: FfmpegTools;
  let fixtures: Record<AcceptedKind | "ogg-opus", Fixture>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "bundled-ffmpeg-"));
    const ffmpeg = bundledPath("ffmpeg");
    const ffprobe = bundledPath("ffprobe");
    if (!ffmpeg || !ffprobe) throw new Error(`no bundled binaries for ${process.platform}-${process.arch}`);
    bundled = { ffmpeg, ffprobe };
    const accepted = await makeAcceptedFixtures(dir);
    // Ogg with Opus inside (what browsers' recorders and phones make), next to Ogg Vorbis.
    const opus = path.join(dir, "talk-opus.ogg");
    await run(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-i", accepted.wav.path, "-c:a", "libopus", "-f", "ogg", opus]);
    fixtures = { ...accepted, "ogg-opus": { ...accepted.ogg, fileName: "talk-opus.ogg", path: opus, size: (await stat(opus)).size } };
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("are found in the npm packages and run", async () => {
    const ffmpeg = await chooseTool("ffmpeg", { system: "/nonexistent/ffmpeg" });
    const ffprobe = await chooseTool("ffprobe", { system: "/nonexistent/ffprobe" });
    expect(ffmpeg).toMatchObject({ source: "bundled", path: bundled.ffmpeg });
    expect(ffmpeg.version).toMatch(/^ffmpeg version/);
    expect(ffprobe).toMatchObject({ source: "bundled", path: bundled.ffprobe });
    expect(ffprobe.version).toMatch(/^ffprobe version/);
  });

  it.each(["mp3", "wav", "m4a", "flac", "ogg", "ogg-opus", "webm-audio", "mp4-video", "webm-video"] as const)(
    "decode %s to 16 kHz mono speech of the right length",
    async (kind) => {
      const fixture = fixtures[kind];
      const probed = await probe(bundled, fixture.path, { maxStreams: 32 });
      expect(probed.hasAudio).toBe(true);
      const out = path.join(dir, `${kind}.wav`);
      const { duration } = await transcodeToProcessed(bundled, fixture.path, out, { maxStreams: 32, maxSeconds: 600, timeoutMs: 60_000 });
      // Encoders pad a little (AAC, Opus priming); the speech itself must all be there.
      expect(Math.abs(duration - fixture.speechSeconds)).toBeLessThan(0.25);
      const pcm = await readFile(out);
      const samples = new Int16Array(pcm.buffer, pcm.byteOffset + 44, Math.floor((pcm.length - 44) / 2));
      let energy = 0;
      for (const s of samples) energy += s * s;
      // espeak speech at full scale: far above silence (an empty decode is 0).
      expect(Math.sqrt(energy / samples.length)).toBeGreaterThan(500);
    },
    60_000,
  );

  it("an explicit FFMPEG_PATH wins and must work; nothing usable names what to install", async () => {
    await expect(chooseTools({ FFMPEG_PATH: "/nonexistent/ffmpeg" })).rejects.toThrow(
      /ffmpeg \("\/nonexistent\/ffmpeg".*apt-get install ffmpeg/,
    );
    const chosen = await chooseTool("ffprobe", { configured: bundled.ffprobe });
    expect(chosen.source).toBe("FFPROBE_PATH");
    const none = chooseTool("ffmpeg", { system: "/nonexistent/ffmpeg", bundled: null });
    await expect(none).rejects.toBeInstanceOf(MissingToolError);
    await expect(none).rejects.toThrow(/no @ffmpeg-installer\/.* package installed.*brew install ffmpeg/);
  });

  it("a system binary that exists but fails to run is passed over for the bundled one", async () => {
    const broken = path.join(dir, "broken-ffmpeg");
    await run("sh", ["-c", `printf '#!/bin/sh\\nexit 127\\n' > ${broken} && chmod +x ${broken}`]);
    const chosen = await chooseTool("ffmpeg", { system: broken });
    expect(chosen.source).toBe("bundled");
  });
});
