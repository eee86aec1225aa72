import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { bridgesNeeded, mergeChunks, planChunks, type ChunkWindow } from "../../domain/chunks.js";
import { spokenLanguage } from "../../domain/settings.js";
import { settleTimeline } from "../../domain/timeline.js";
import { guardSegments } from "../../domain/guard.js";
import {
  TranscriberError,
  type ChunkResult,
  type Segment,
  type TranscribeRequest,
  type TranscriptResult,
  type Word,
} from "../../domain/transcriber.js";

const run = promisify(execFile);

export interface WindowAnswer {
  /** Whisper language code of what the provider heard. */
  language: string;
  /** Seconds relative to the window's start. */
  segments: Segment[];
}

/**
 * Cloud providers take a request body of limited size (Groq: 25 MB). The audio is cut
 * with ffmpeg into overlapping windows of 16 kHz mono FLAC (about 1 MB a minute), each
 * sent on its own, and the answers are merged at the seams like the local engine's.
 */
export async function transcribeInWindows(
  request: TranscribeRequest,
  options: { windowSeconds: number; overlapSeconds: number; engine: TranscriptResult["engine"] },
  send: (audio: { bytes: Buffer; fileName: string; window: ChunkWindow }, language: string | undefined) => Promise<WindowAnswer>,
): Promise<TranscriptResult> {
  const windows = planChunks(request.durationSeconds, options.windowSeconds, options.overlapSeconds);
  const dir = await mkdtemp(path.join(tmpdir(), "transcribe-cloud-"));
  const chunks: ChunkResult[] = [];
  let language = spokenLanguage(request.settings);
  try {
    const runWindow = async (window: ChunkWindow, isLast: boolean): Promise<ChunkResult> => {
      request.signal.throwIfAborted();
      const file = path.join(dir, `window-${window.index}.flac`);
      try {
        await run(
          // The ffmpeg media runs (decision 0019): the embedded launcher passes its choice
          // (the system's, else the npm package's) as FFMPEG_PATH; an image has the system's.
          process.env.FFMPEG_PATH || "ffmpeg",
          [
            "-nostdin", "-v", "error", "-y", "-ss", String(window.start),
            ...(isLast ? [] : ["-t", String(window.end - window.start)]),
            "-i", request.audioPath, "-ac", "1", "-ar", "16000", "-c:a", "flac", file,
          ],
          { signal: request.signal },
        );
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason;
        throw new TranscriberError("permanent", `The audio could not be read: ${(error as Error).message.split("\n").pop()}`);
      }
      const bytes = await readFile(file);
      await rm(file, { force: true });
      const answer = await send({ bytes, fileName: `audio-${Math.abs(window.index)}.flac`, window }, language);
      language ??= answer.language;
      return {
        index: window.index,
        start: window.start,
        end: window.end,
        language: answer.language,
        segments: answer.segments.map((s) => shift(s, window.start)),
      };
    };
    for (const window of windows) {
      const done = request.completedChunks?.get(window.index);
      if (done && done.start === window.start && done.end === window.end) {
        chunks.push(done);
        language ??= done.language;
        continue;
      }
      const chunk = await runWindow(window, window.index === windows.length - 1);
      chunks.push(chunk);
      await request.onChunk?.(chunk, windows.length);
    }
    for (const bridge of bridgesNeeded(chunks)) chunks.push(await runWindow(bridge, false));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const merged = mergeChunks(chunks);
  const guarded = guardSegments(merged);
  const segments = settleTimeline(guarded.segments, request.durationSeconds);
  const sourceLanguage = language ?? chunks[0]?.language ?? "en";
  return {
    text: segments.map((s) => s.text).join(" ").trim(),
    language: request.settings.translateToEn ? "en" : sourceLanguage,
    sourceLanguage,
    duration: request.durationSeconds,
    segments,
    dropped: guarded.dropped,
    engine: options.engine,
  };
}

function shift(segment: Segment, offset: number): Segment {
  const at = (t: number) => Math.round((t + offset) * 1000) / 1000;
  return {
    ...segment,
    start: at(segment.start),
    end: at(segment.end),
    words: segment.words.map((w) => ({ ...w, start: at(w.start), end: at(w.end) })),
  };
}

/** Puts provider words (a flat, timed list) into the provider's segments by time. */
export function attachWords(segments: Array<Omit<Segment, "words">>, words: Word[]): Segment[] {
  const out: Segment[] = segments.map((s) => ({ ...s, words: [] }));
  let s = 0;
  for (const word of words) {
    const middle = (word.start + word.end) / 2;
    while (s < out.length - 1 && middle >= out[s]!.end && middle >= out[s + 1]!.start) s++;
    out[s]?.words.push(word);
  }
  return out;
}

/**
 * Groups a flat list of words into segments: a new one after sentence-ending
 * punctuation, a pause over `gapSeconds`, or `maxWords` words.
 */
export function segmentsFromWords(words: Word[], options: { gapSeconds?: number; maxWords?: number } = {}): Segment[] {
  const gap = options.gapSeconds ?? 1.0;
  const maxWords = options.maxWords ?? 30;
  const out: Segment[] = [];
  let current: Word[] = [];
  const flush = () => {
    if (current.length === 0) return;
    out.push({ start: current[0]!.start, end: current[current.length - 1]!.end, text: current.map((w) => w.word).join(""), words: current });
    current = [];
  };
  for (const word of words) {
    const previous = current[current.length - 1];
    if (previous && (word.start - previous.end > gap || current.length >= maxWords || previous.speaker !== word.speaker)) flush();
    current.push(word);
    if (/[.!?。！？]["')\]]?$/.test(word.word.trim())) flush();
  }
  flush();
  return out;
}
