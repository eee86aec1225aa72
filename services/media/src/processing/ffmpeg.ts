import { spawn } from "node:child_process";
import { open } from "node:fs/promises";
import { PROCESSED, PROCESSED_BYTES_PER_SECOND } from "../domain/rules.js";
import { INSTALL_HINT, MissingToolError, toolVersion } from "./ffmpeg-binaries.js";

export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
}

/**
 * Demuxers the service lets ffmpeg use on untrusted bytes: exactly the containers of
 * docs/requirements.md "Validation". Everything else (playlists, concat lists, image sequences, "tty" for text)
 * is refused before it is parsed; playlists could otherwise make ffmpeg open other
 * files or URLs.
 */
const FORMAT_WHITELIST = "mp3,wav,mov,mp4,m4a,3gp,3g2,mj2,flac,ogg,matroska,webm";

/** Limits applied to every untrusted input before ffmpeg or ffprobe parses it. */
export interface InputLimits {
  /**
   * Streams a container may declare. ffmpeg allocates a context per stream while it reads
   * the header, so a file of thousands of tiny streams costs memory and time before any
   * decision; past this count the demuxer stops at once.
   */
  maxStreams: number;
}

function inputGuards(limits: InputLimits): string[] {
  return ["-protocol_whitelist", "file", "-format_whitelist", FORMAT_WHITELIST, "-max_streams", String(limits.maxStreams)];
}

export { MissingToolError } from "./ffmpeg-binaries.js";

/** Runs `<tool> -version` for both given binaries; the media service cannot work without them. */
export async function checkTools(tools: FfmpegTools): Promise<{ ffmpeg: string; ffprobe: string }> {
  const versions: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, command] of Object.entries(tools)) {
    try {
      versions[name] = await toolVersion(command);
    } catch (error) {
      missing.push(`${name} ("${command}": ${(error as Error).message})`);
    }
  }
  if (missing.length > 0) {
    throw new MissingToolError(`media needs ffmpeg and ffprobe, but ${missing.join(" and ")} could not be run: ${INSTALL_HINT}`);
  }
  return versions as { ffmpeg: string; ffprobe: string };
}

export interface ProbeResult {
  formatName: string;
  hasAudio: boolean;
  hasVideo: boolean;
  /** Seconds the first audio stream (or, without video, the container) says it lasts. */
  declaredDuration: number | undefined;
  /** True when ffprobe guessed the duration from the bitrate (then it proves nothing). */
  durationEstimated: boolean;
}

/** Thrown when the bytes are not a readable file of an allowed container. */
export class NotMediaError extends Error {
  override readonly name = "NotMediaError";
}

/** Thrown when the container declares more streams than InputLimits.maxStreams. */
export class TooManyStreamsError extends Error {
  override readonly name = "TooManyStreamsError";
}

/** A tool's refusal of the input, as the error the caller turns into a message. */
function inputError(error: ToolFailedError): Error {
  const detail = error.stderr.trim() || error.message;
  // ffmpeg's own wording (libavformat avformat_new_stream).
  if (/exceeds max_streams/.test(detail)) return new TooManyStreamsError(detail);
  return new NotMediaError(detail);
}

export async function probe(tools: FfmpegTools, file: string, limits: InputLimits, timeoutMs = 60_000): Promise<ProbeResult> {
  let output: { stdout: string; stderr: string };
  try {
    output = await run(
      tools.ffprobe,
      ["-v", "warning", ...inputGuards(limits), "-show_entries", "format=format_name,duration:stream=codec_type,duration", "-of", "json", file],
      { timeoutMs },
    );
  } catch (error) {
    if (error instanceof ToolFailedError) throw inputError(error);
    throw error;
  }
  let parsed: {
    format?: { format_name?: string; duration?: string };
    streams?: Array<{ codec_type?: string; duration?: string }>;
  };
  try {
    parsed = JSON.parse(output.stdout) as typeof parsed;
  } catch {
    // Only a cut-off capture (see run) gets here: no allowed file makes ffprobe say that much.
    throw new NotMediaError("ffprobe's answer could not be read");
  }
  if (!parsed.format?.format_name) throw new NotMediaError("no container recognised");
  const streams = parsed.streams ?? [];
  const audio = streams.find((s) => s.codec_type === "audio");
  const hasVideo = streams.some((s) => s.codec_type === "video");
  const declared = toSeconds(audio?.duration) ?? (hasVideo ? undefined : toSeconds(parsed.format.duration));
  return {
    formatName: parsed.format.format_name,
    hasAudio: audio !== undefined,
    hasVideo,
    declaredDuration: declared,
    durationEstimated: /Estimating duration from bitrate/i.test(output.stderr),
  };
}

/**
 * Decodes the first audio stream to 16 kHz mono 16-bit PCM WAV and returns the length
 * of what was actually decoded, in seconds: the real duration, whatever the header said.
 * Decoding stops after `maxSeconds`: a small file that hides hours of audio (a FLAC of
 * silence without its sample count) cannot fill the disk; a result longer than the
 * limit tells the caller it was cut.
 */
export async function transcodeToProcessed(
  tools: FfmpegTools,
  input: string,
  output: string,
  options: InputLimits & { maxSeconds: number; timeoutMs: number },
): Promise<{ duration: number }> {
  try {
    await run(
      tools.ffmpeg,
      [
        "-nostdin", "-hide_banner", "-v", "error", ...inputGuards(options), "-i", input,
        "-map", "0:a:0", "-vn", "-sn", "-dn", "-t", String(options.maxSeconds),
        "-ac", String(PROCESSED.channels), "-ar", String(PROCESSED.sampleRate), "-c:a", "pcm_s16le",
        // No metadata or encoder tag: a plain 44-byte header every reader accepts.
        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact",
        "-f", "wav", "-y", output,
      ],
      { timeoutMs: options.timeoutMs },
    );
  } catch (error) {
    if (error instanceof ToolFailedError) throw inputError(error);
    throw error;
  }
  return { duration: (await wavDataBytes(output)) / PROCESSED_BYTES_PER_SECOND };
}

/** Cuts [start, end) seconds out of the processed WAV (sample-exact: PCM in, PCM out). */
export async function cutProcessed(tools: FfmpegTools, input: string, output: string, start: number, end: number, timeoutMs: number) {
  await run(
    tools.ffmpeg,
    [
      "-nostdin", "-hide_banner", "-v", "error", ...inputGuards({ maxStreams: 1 }),
      "-ss", start.toFixed(3), "-to", end.toFixed(3), "-i", input,
      "-c:a", "pcm_s16le", "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact",
      "-f", "wav", "-y", output,
    ],
    { timeoutMs },
  );
}

/** The size of the WAV's data chunk, read from its RIFF header (without loading the file). */
export async function wavDataBytes(file: string): Promise<number> {
  const chunk = await readWavHeader(file);
  if (!chunk) throw new Error("ffmpeg did not write a WAV file with a data chunk");
  // Streams written without seeking leave 0 or 0xFFFFFFFF; the file size is the truth.
  return Math.min(chunk.dataLength ?? Infinity, chunk.available);
}

/**
 * How long a WAV's header says its samples last (data chunk length over byte rate), or
 * undefined when the header leaves it open. ffprobe measures a WAV by its file size, so
 * a file cut short looks whole to it; the header still says what was meant to arrive.
 */
export async function wavDeclaredSeconds(file: string): Promise<number | undefined> {
  const chunk = await readWavHeader(file);
  if (!chunk?.dataLength || !chunk.byteRate) return undefined;
  return chunk.dataLength / chunk.byteRate;
}

interface WavHeader {
  /** The data chunk's own length field; undefined when 0 or 0xFFFFFFFF (written while streaming). */
  dataLength: number | undefined;
  /** Bytes after the data chunk's header. */
  available: number;
  /** From the fmt chunk (bytes per second), when it came first. */
  byteRate: number | undefined;
}

async function readWavHeader(file: string): Promise<WavHeader | undefined> {
  const handle = await open(file, "r");
  try {
    const { size } = await handle.stat();
    const header = Buffer.alloc(12);
    await handle.read(header, 0, 12, 0);
    if (header.toString("ascii", 0, 4) !== "RIFF" || header.toString("ascii", 8, 12) !== "WAVE") return undefined;
    const chunkHeader = Buffer.alloc(20);
    let byteRate: number | undefined;
    for (let offset = 12; offset + 8 <= size; ) {
      await handle.read(chunkHeader, 0, 20, offset);
      const id = chunkHeader.toString("ascii", 0, 4);
      const length = chunkHeader.readUInt32LE(4);
      // fmt: format (2), channels (2), sample rate (4), byte rate (4), ...
      if (id === "fmt ") byteRate = chunkHeader.readUInt32LE(16);
      if (id === "data") {
        return { dataLength: length === 0 || length === 0xffffffff ? undefined : length, available: size - offset - 8, byteRate };
      }
      offset += 8 + length + (length % 2);
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

// ---- process plumbing --------------------------------------------------------------------

export class ToolFailedError extends Error {
  override readonly name = "ToolFailedError";
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

const MAX_CAPTURE = 64 * 1024;

/** Running ffmpeg/ffprobe children, so a stopping service does not leave them orphaned. */
const running = new Set<ReturnType<typeof spawn>>();

/** Kills every running tool (service shutdown); their jobs are retried by a later lease. */
export function killRunningTools(): void {
  for (const child of running) child.kill("SIGKILL");
}

function run(command: string, args: string[], options: { timeoutMs: number }): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    running.add(child);
    child.once("close", () => running.delete(child));
    let stdout = "";
    let stderr = "";
    // Bounded: a hostile file can make ffmpeg print a line per broken frame.
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < MAX_CAPTURE * 16) stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr = (stderr + d).slice(-MAX_CAPTURE);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout, stderr });
      // Killed (timeout, out of memory) says nothing about the file: not a refusal, a retry.
      if (signal) return reject(new Error(`${command} was stopped by ${signal} (deadline ${options.timeoutMs} ms)`));
      reject(new ToolFailedError(`${command} exited with ${code}`, stderr));
    });
  });
}

function toSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}
