import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { Logger } from "@transcribe/platform";
import { type TranscribeRequest, TranscribeRequestSchema, type LiveTranscriptionService, type LiveWord } from "@transcribe/proto/live/v1/live";
import type { DeveloperPipeline } from "../developer/pipeline.js";
import { WavSpool } from "./spool.js";

export interface LiveWordOut {
  text: string;
  start: number;
  end: number;
}

export interface LiveSessionEvents {
  ready(info: { sessionId: string; model: string; maxSeconds: number }): void;
  words(update: { settled: LiveWordOut[]; partial: LiveWordOut[]; audioSeconds: number; flushed: boolean }): void;
}

/** How a live session ended, and what became of its audio. */
export type LiveOutcome =
  | { kind: "refused"; message: string }
  | { kind: "invalid"; message: string; transcriptionId?: string | undefined }
  | { kind: "stopped"; reason: string; audioSeconds: number; transcriptionId?: string | undefined; fileId?: string | undefined }
  | { kind: "failed"; message: string; audioSeconds: number; transcriptionId?: string | undefined };

export interface LiveSessionOptions {
  userId: string;
  model: string;
  language: string;
  diarize: boolean;
  name?: string | undefined;
  live: Client<typeof LiveTranscriptionService>;
  pipeline: DeveloperPipeline;
  spoolDir: string;
  maxSeconds: number;
  logger: Logger;
}

/** Less than this is no recording: nothing is saved. */
const MIN_SAVED_SECONDS = 0.5;

/**
 * One live session as the BFF runs it (decision 0030): the caller's audio goes to disk as
 * it arrives and on to the live worker's gRPC stream; words come back to `events`. However
 * it ends (stop, the worker failing, the client vanishing) the audio heard so far becomes a
 * file and a normal transcription, whose batch pass replaces the live text; only a refusal
 * (no free slot) saves nothing.
 */
export class LiveSession {
  readonly done: Promise<LiveOutcome>;
  private readonly inputs = new InputQueue();
  private readonly abort = new AbortController();
  private spool: WavSpool | undefined;
  /** Audio sent before the worker answered, for the spool it is about to get. */
  private early: Uint8Array[] = [];
  private stopped = false;

  constructor(
    private readonly options: LiveSessionOptions,
    private readonly events: LiveSessionEvents,
  ) {
    this.done = this.run();
  }

  /** 16 kHz mono s16le PCM. */
  audio(pcm: Uint8Array): void {
    if (this.stopped) return;
    if (this.spool) this.spool.append(pcm);
    else this.early.push(pcm);
    this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "audio", value: pcm } }));
    if (this.spool && this.spool.seconds >= this.options.maxSeconds) this.stop();
  }

  get ready(): boolean {
    return this.spool !== undefined;
  }

  flush(): void {
    if (!this.stopped) this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "flush", value: {} } }));
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "stop", value: {} } }));
    this.inputs.end();
  }

  /** The client is gone: free the worker's slot now; what was heard is still saved. */
  cancel(): void {
    this.stopped = true;
    this.inputs.end();
    this.abort.abort(new Error("the client went away"));
  }

  private async run(): Promise<LiveOutcome> {
    const { options } = this;
    this.inputs.push(
      create(TranscribeRequestSchema, { kind: { case: "start", value: { userId: options.userId, model: options.model, language: options.language } } }),
    );
    let outcome: LiveOutcome | undefined;
    try {
      const outputs = options.live.transcribe(this.inputs, {
        signal: this.abort.signal,
        // The deadline of the whole stream: the longest session and time to settle its end.
        timeoutMs: (options.maxSeconds + 120) * 1000,
      });
      for await (const output of outputs) {
        const kind = output.kind;
        if (kind.case === "ready") {
          this.spool = await WavSpool.create(options.spoolDir);
          for (const pcm of this.early) this.spool.append(pcm);
          this.early = [];
          this.events.ready({ sessionId: kind.value.sessionId, model: kind.value.model, maxSeconds: Math.min(kind.value.maxSeconds, options.maxSeconds) });
        } else if (kind.case === "words") {
          this.events.words({
            settled: kind.value.settled.map(wordOut),
            partial: kind.value.partial.map(wordOut),
            audioSeconds: kind.value.audioSeconds,
            flushed: kind.value.flushed,
          });
        } else if (kind.case === "stopped") {
          outcome = { kind: "stopped", reason: kind.value.reason, audioSeconds: kind.value.audioSeconds };
        }
      }
      outcome ??= { kind: "failed", message: "The live worker ended the session without stopping it", audioSeconds: this.spool?.seconds ?? 0 };
    } catch (error) {
      const connect = ConnectError.from(error);
      if (!this.spool && connect.code === Code.ResourceExhausted) return { kind: "refused", message: connect.rawMessage };
      if (connect.code === Code.InvalidArgument) outcome = { kind: "invalid", message: connect.rawMessage };
      else if (this.abort.signal.aborted) outcome = { kind: "stopped", reason: "client_gone", audioSeconds: this.spool?.seconds ?? 0 };
      else {
        options.logger.warn({ err: error }, "live session failed");
        outcome = { kind: "failed", message: connect.rawMessage, audioSeconds: this.spool?.seconds ?? 0 };
      }
    } finally {
      this.stopped = true;
      this.inputs.end();
    }
    const saved = await this.save();
    return { ...outcome, ...saved };
  }

  /** The audio becomes a file and a transcription like an upload's (billed, batch pass). */
  private async save(): Promise<{ transcriptionId?: string; fileId?: string }> {
    const spool = this.spool;
    if (!spool) return {};
    let keep = false;
    try {
      await spool.close();
      if (spool.seconds < MIN_SAVED_SECONDS) return {};
      const { options } = this;
      const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
      const fileName = `${(options.name ?? `Live ${stamp}`).replace(/[\\/:*?"<>|]+/g, "-").slice(0, 200)}.wav`;
      const fileId = await options.pipeline.uploadFile(options.userId, { path: spool.path, fileName, mimeType: "audio/wav", size: spool.size });
      const ready = await options.pipeline.waitUntilReady(options.userId, fileId, Date.now() + 120_000);
      if (!ready) return { fileId };
      const transcriptionId = await options.pipeline.start(options.userId, fileId, {
        model: options.model,
        language: options.language || "auto",
        ...(options.diarize ? { diarize: true } : {}),
      });
      return { fileId, transcriptionId };
    } catch (error) {
      keep = true;
      this.options.logger.error({ err: error, spool: spool.path }, "a live session's audio could not be saved; the file is kept");
      return {};
    } finally {
      if (!keep) await spool.remove().catch(() => undefined);
    }
  }
}

function wordOut(word: LiveWord): LiveWordOut {
  return { text: word.text, start: word.start, end: word.end };
}

/** The request side of the stream: messages in order, ended once. */
class InputQueue implements AsyncIterable<TranscribeRequest> {
  private items: TranscribeRequest[] = [];
  private waiter: (() => void) | undefined;
  private ended = false;

  push(item: TranscribeRequest): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TranscribeRequest> {
    for (;;) {
      const item = this.items.shift();
      if (item) {
        yield item;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }
}
