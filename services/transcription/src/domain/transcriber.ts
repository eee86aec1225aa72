import type { JobSettings } from "./settings.js";
import type { SpeakerTurn } from "./speakers.js";
/**
 * The port every speech engine implements (local Whisper, Groq, ElevenLabs). The worker
 * picks one by the model's provider; nothing outside an adapter knows how it runs.
 */

import type { Speaker } from "./speakers.js";

export interface Word {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  probability?: number;
  /** Speaker id (S1, S2…) when the transcript was diarized. */
  speaker?: string;
}

export interface Segment {
  start: number;
  end: number;
  text: string;
  words: Word[];
  /** Engine confidence signals, when it reports them (used by the repetition guard). */
  avgLogprob?: number;
  compressionRatio?: number;
  noSpeechProb?: number;
  speaker?: string;
}

export interface TranscribeRequest {
  /** A local audio file any format ffmpeg reads. */
  audioPath: string;
  /** Seconds, as measured by media; plans chunks and time limits. */
  durationSeconds: number;
  /** The provider's model (local: weights name such as "base"). */
  engineModel: string;
  /**
   * The job's settings the engine reads (language "auto" is detected: spokenLanguage();
   * translateToEn is Whisper's task: taskOf()). Speaker settings matter only to a provider
   * that finds speakers itself (ElevenLabs); the others' come from the diarizer after.
   */
  settings: EngineSettings;
  /** Terms to spell as given (decision 0029), most relevant first; each engine's own way to hint them. */
  vocabulary?: readonly string[] | undefined;
  /** Aborted when the job is cancelled, its lease is lost or its time is up. */
  signal: AbortSignal;
  /** Chunks finished by an earlier attempt of the same job (resumption after a crash). */
  completedChunks?: ReadonlyMap<number, ChunkResult>;
  /** Called after each chunk; the worker stores it so a restarted job resumes there. */
  onChunk?: (chunk: ChunkResult, total: number) => Promise<void>;
  /** A readable step the job waits for (a model download), or undefined when it is over. */
  onProgress?: (message: string | undefined) => void;
}

export type EngineSettings = Pick<JobSettings, "language" | "translateToEn" | "temperature" | "prompt" | "diarize" | "minSpeakers" | "maxSpeakers">;

export interface ChunkResult {
  index: number;
  start: number;
  end: number;
  language: string;
  segments: Segment[];
}

export interface DroppedSegment {
  start: number;
  end: number;
  text: string;
  reason: string;
}

export interface TranscriptResult {
  text: string;
  /** Language of the text: the detected (or given) one, "en" when translated. */
  language: string;
  /** The spoken language as detected or given (differs from `language` when translated). */
  sourceLanguage: string;
  duration: number;
  segments: Segment[];
  /** Segments removed by the repetition/hallucination guard, for the logs and the tests. */
  dropped: DroppedSegment[];
  engine: { name: string; model: string; version?: string };
  /** Who spoke, when diarization was asked for and ran; ids as in the segments. */
  speakers?: Speaker[];
  /** Each speaker's voice (unit-norm embedding) by speaker id, from the local diarizer (decision 0031). */
  speakerEmbeddings?: Record<string, number[]>;
  /** Why there are no speakers although they were asked for (readable by a user). */
  speakersNote?: string;
  /** Who spoke when, as the diarizer (or provider) heard it, with the ids of `speakers`. */
  speakerTurns?: SpeakerTurn[];
  /** Provider-made speaker turns (ElevenLabs); the worker then runs no diarizer. */
  providerSpeakers?: boolean;
}

export interface Transcriber {
  readonly name: string;
  transcribe(request: TranscribeRequest): Promise<TranscriptResult>;
  close(): Promise<void>;
}

/**
 * transient: worth retrying (engine process died, timeout, provider 5xx or rate limit).
 * permanent: retrying cannot help (undecodable audio, missing model, bad request); the
 * message is shown to the user as is.
 */
export class TranscriberError extends Error {
  override readonly name = "TranscriberError";
  constructor(
    readonly kind: "transient" | "permanent",
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
