import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { currentUserId, type Logger } from "@transcribe/platform";
import {
  type TranscribeRequest,
  type TranscribeResponse,
  TranscribeResponseSchema,
  type LiveTranscriptionService,
  type LiveWord,
  LiveWordSchema,
} from "@transcribe/proto/live/v1/live";
import { defaultModel, findModel } from "../domain/models.js";
import type { LiveEngineEvent, LiveEngineProcess, LiveEngineWord } from "../engines/local/live-process.js";
import { resolveModel, type ModelLocations } from "../engines/local/models.js";
import { LIVE_SAMPLE_RATE, MAX_FRAME_BYTES, type SlotPool } from "./slots.js";

export interface LiveServiceOptions {
  slots: SlotPool<LiveEngineProcess>;
  locations: ModelLocations;
  maxSeconds: number;
  threads: number;
  computeType: string;
  device: "cpu" | "cuda";
  logger: Logger;
  /** How long the engine may take to load its model and answer `ready`. */
  readyTimeoutMs?: number;
}

/**
 * The live worker's RPC (decision 0030): a slot per session, refused at once when none is
 * free; audio in, words out; the slot freed when the session ends, fails or is cancelled.
 */
export function liveServiceImpl(options: LiveServiceOptions): ServiceImpl<typeof LiveTranscriptionService> {
  return {
    async *transcribe(inputs: AsyncIterable<TranscribeRequest>, context: HandlerContext) {
      const iterator = inputs[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done || first.value.kind.case !== "start") {
        throw new ConnectError("The first message of a live session must be start", Code.InvalidArgument);
      }
      const start = first.value.kind.value;
      const caller = currentUserId();
      if (!start.userId) throw new ConnectError("user_id is required", Code.InvalidArgument);
      if (caller && caller !== start.userId) {
        throw new ConnectError("The request's user_id is not the user the call is made for", Code.PermissionDenied);
      }
      const model = start.model ? findModel(start.model) : defaultModel;
      if (model?.provider !== "local") {
        throw new ConnectError(`Live transcription runs on local models only; "${start.model}" is not one`, Code.InvalidArgument);
      }
      const resolution = resolveModel(model.engineModel, options.locations);
      if (resolution.kind !== "found") {
        throw new ConnectError(`The model ${model.id} is not on this live worker`, Code.FailedPrecondition);
      }
      const slot = options.slots.acquire();
      if (!slot) throw new ConnectError("Every live transcription slot is busy; try again in a moment", Code.ResourceExhausted);

      const engine = slot.value;
      const events = new EventQueue<LiveEngineEvent>(context.signal);
      engine.listen((event) => events.push(event));
      let clean = false;
      let over = false;
      const sessionId = randomUUID();
      const log = options.logger.child({ liveSession: sessionId, userId: start.userId });
      try {
        engine.start({
          modelDir: resolution.dir,
          language: start.language || undefined,
          threads: options.threads,
          computeType: options.computeType,
          device: options.device,
        });
        const ready = await events.next(options.readyTimeoutMs ?? 120_000);
        if (ready.event !== "ready") throw engineFailure(ready);
        log.info({ model: model.id, loadSeconds: ready.load_seconds }, "live session started");
        yield create(TranscribeResponseSchema, {
          kind: { case: "ready", value: { sessionId, model: model.id, maxSeconds: options.maxSeconds } },
        });

        let stopReason: "stop" | "max_seconds" | undefined;
        const pump = (async () => {
          let bytes = 0;
          const limit = options.maxSeconds * LIVE_SAMPLE_RATE * 2;
          for (;;) {
            const next = await iterator.next();
            if (next.done || over) break;
            const kind = next.value.kind;
            if (kind.case === "audio") {
              if (stopReason) continue;
              const frame = kind.value;
              if (frame.byteLength % 2 !== 0 || frame.byteLength > MAX_FRAME_BYTES) {
                throw new ConnectError(
                  `An audio frame holds 16-bit samples, at most ${MAX_FRAME_BYTES} bytes; got ${frame.byteLength} bytes`,
                  Code.InvalidArgument,
                );
              }
              const room = Math.max(0, limit - bytes);
              const taken = frame.byteLength > room ? frame.subarray(0, room - (room % 2)) : frame;
              bytes += taken.byteLength;
              if (taken.byteLength > 0) engine.audio(taken);
              if (bytes >= limit) {
                stopReason = "max_seconds";
                engine.stop();
              }
            } else if (kind.case === "flush") {
              if (!stopReason) engine.flush();
            } else if (kind.case === "stop") {
              if (!stopReason) {
                stopReason = "stop";
                engine.stop();
              }
              break;
            } else {
              throw new ConnectError("start may be sent only once", Code.InvalidArgument);
            }
          }
          // The caller closed its side without stop: finish what was said.
          if (!stopReason && !over) {
            stopReason = "stop";
            engine.stop();
          }
        })();
        pump.catch((error: unknown) => events.fail(error));

        for (;;) {
          const event = await events.next();
          if (event.event === "words") {
            if (event.settled.length === 0 && event.partial.length === 0 && !event.flushed) continue;
            yield create(TranscribeResponseSchema, {
              kind: {
                case: "words",
                value: {
                  settled: event.settled.map(toWord),
                  partial: event.partial.map(toWord),
                  audioSeconds: event.audio_seconds,
                  flushed: event.flushed === true,
                },
              },
            });
          } else if (event.event === "stopped") {
            clean = true;
            log.info({ audioSeconds: event.audio_seconds, reason: stopReason }, "live session stopped");
            yield create(TranscribeResponseSchema, {
              kind: { case: "stopped", value: { audioSeconds: event.audio_seconds, reason: stopReason ?? "stop" } },
            });
            return;
          } else {
            throw engineFailure(event);
          }
        }
      } finally {
        over = true;
        engine.listen(undefined);
        // A session that did not end cleanly may leave the engine mid-decode: start afresh.
        if (!clean) engine.kill();
        slot.release();
      }
    },
  };
}

function toWord(word: LiveEngineWord): LiveWord {
  return create(LiveWordSchema, { text: word.word, start: word.start, end: word.end, probability: word.probability });
}

function engineFailure(event: LiveEngineEvent): ConnectError {
  if (event.event === "error") {
    const code = event.kind === "bad_request" || event.kind === "bad_audio" ? Code.InvalidArgument : Code.Unavailable;
    return new ConnectError(`The live engine failed: ${event.message}`, code);
  }
  if (event.event === "exit") return new ConnectError(`The live engine stopped (${event.reason})`, Code.Unavailable);
  return new ConnectError(`Unexpected live engine event ${event.event}`, Code.Internal);
}

/** Engine events waited for one at a time; cancellation and failures end the wait. */
class EventQueue<T> {
  private items: T[] = [];
  private waiter: { resolve(value: T): void; reject(error: unknown): void } | undefined;
  private failure: unknown;

  constructor(signal: AbortSignal) {
    const onAbort = () => this.fail(ConnectError.from(signal.reason ?? new Error("cancelled"), Code.Canceled));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  }

  push(item: T): void {
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter.resolve(item);
    } else this.items.push(item);
  }

  fail(error: unknown): void {
    this.failure ??= error;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(error);
  }

  next(timeoutMs?: number): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      if (timeoutMs) {
        timer = setTimeout(() => {
          this.waiter = undefined;
          reject(new ConnectError(`The live engine did not get ready within ${Math.round(timeoutMs / 1000)} s`, Code.Unavailable));
        }, timeoutMs);
      }
      this.waiter = {
        resolve: (value) => {
          if (timer) clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          if (timer) clearTimeout(timer);
          reject(error);
        },
      };
    });
  }
}

export type { TranscribeResponse };
