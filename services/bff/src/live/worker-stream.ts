import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { type LiveTranscriptionService, type LiveWord, type TranscribeRequest, TranscribeRequestSchema } from "@transcribe/proto/live/v1/live";
import type { LiveWordOut } from "./records.js";

/** How one gRPC stream to the live worker ended. */
export type StreamEnd =
  | { kind: "refused" | "invalid" | "failed"; message: string }
  | { kind: "stopped"; reason: string }
  | { kind: "cancelled" };

export interface StreamEvents {
  ready(info: { model: string; maxSeconds: number }): void;
  words(update: { settled: LiveWordOut[]; partial: LiveWordOut[]; audioSeconds: number; flushed: boolean }): void;
}

/**
 * One `LiveTranscriptionService/Transcribe` stream (decision 0030). A session may need
 * several in turn (its client resumed after a drop, or on another BFF process): each one
 * starts at `offset` seconds of the session's audio, and its words are moved there.
 */
export class WorkerStream {
  private readonly inputs = new InputQueue();
  private readonly abort = new AbortController();

  constructor(
    private readonly live: Client<typeof LiveTranscriptionService>,
    start: { userId: string; model: string; language: string },
    private readonly timeoutMs: number,
    readonly offset: number,
  ) {
    this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "start", value: start } }));
  }

  audio(pcm: Uint8Array): void {
    this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "audio", value: pcm } }));
  }

  flush(): void {
    this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "flush", value: {} } }));
  }

  stop(): void {
    this.inputs.push(create(TranscribeRequestSchema, { kind: { case: "stop", value: {} } }));
    this.inputs.end();
  }

  /** Frees the worker's slot now (the client went away, or this BFF is stopping). */
  cancel(): void {
    this.inputs.end();
    this.abort.abort(new Error("the live stream was cancelled"));
  }

  async run(events: StreamEvents): Promise<StreamEnd> {
    let ready = false;
    try {
      const outputs = this.live.transcribe(this.inputs, { signal: this.abort.signal, timeoutMs: this.timeoutMs });
      for await (const output of outputs) {
        const kind = output.kind;
        if (kind.case === "ready") {
          ready = true;
          events.ready({ model: kind.value.model, maxSeconds: kind.value.maxSeconds });
        } else if (kind.case === "words") {
          events.words({
            settled: kind.value.settled.map((w) => this.moved(w)),
            partial: kind.value.partial.map((w) => this.moved(w)),
            audioSeconds: this.offset + kind.value.audioSeconds,
            flushed: kind.value.flushed,
          });
        } else if (kind.case === "stopped") {
          return { kind: "stopped", reason: kind.value.reason };
        }
      }
      return { kind: "failed", message: "The live worker ended the session without stopping it" };
    } catch (error) {
      if (this.abort.signal.aborted) return { kind: "cancelled" };
      const connect = ConnectError.from(error);
      if (!ready && connect.code === Code.ResourceExhausted) return { kind: "refused", message: connect.rawMessage };
      if (connect.code === Code.InvalidArgument) return { kind: "invalid", message: connect.rawMessage };
      return { kind: "failed", message: connect.rawMessage };
    } finally {
      this.inputs.end();
    }
  }

  private moved(word: LiveWord): LiveWordOut {
    return { text: word.text, start: this.offset + word.start, end: this.offset + word.end };
  }
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
