import { chooseTools } from "../processing/ffmpeg-binaries.js";

export { espeakNg, espeakNgSource, espeakNgSync } from "./espeak-ng.mjs";

/**
 * The ffmpeg and ffprobe that tests, benchmarks and journeys run to make and measure their
 * fixtures: the ones media itself would run (decision 0019: FFMPEG_PATH / FFPROBE_PATH, else
 * the system's, else the static build from the npm packages), so a machine without a
 * system FFmpeg runs the same suites as one with it.
 */
const chosen = await chooseTools(process.env).then(
  (tools) => ({ tools, problem: undefined }),
  (error: Error) => ({ tools: undefined, problem: error.message }),
);

/** Why no ffmpeg/ffprobe can run here, or undefined. */
export const mediaToolsProblem: string | undefined = chosen.problem;
/** The ffmpeg binary to run ("ffmpeg" when none was found: running it then fails with mediaToolsProblem's cause). */
export const ffmpegPath: string = chosen.tools?.ffmpeg.path ?? "ffmpeg";
/** The ffprobe binary to run. */
export const ffprobePath: string = chosen.tools?.ffprobe.path ?? "ffprobe";
/** For a child process (a browser journey) that takes its binaries from the environment. */
export const mediaToolsEnv: Record<string, string> = chosen.tools ? { FFMPEG_PATH: ffmpegPath, FFPROBE_PATH: ffprobePath } : {};
