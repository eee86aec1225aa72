import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@connectrpc/connect";
import type { Logger } from "@transcribe/platform";
import type { LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import type { DeveloperPipeline } from "../developer/pipeline.js";
import { SessionLease } from "./lease.js";
import type { LiveRecord, LiveRecords, LiveWordOut } from "./records.js";
import type { WavSpool } from "./spool.js";
import { type StreamEnd, WorkerStream } from "./worker-stream.js";

export type { LiveWordOut };

/** How a live session ended, and what became of its audio. */
export type LiveOutcome =
  | { kind: "refused"; message: string }
  | { kind: "invalid"; message: string; transcriptionId?: string | undefined }
  | { kind: "stopped"; reason: string; audioSeconds: number; transcriptionId?: string | undefined; fileId?: string | undefined }
  | { kind: "failed"; message: string; audioSeconds: number; transcriptionId?: string | undefined }
  /** This BFF is stopping: the session stays on disk for the next one, and its client reconnects. */
  | { kind: "suspended" }
  /** Another BFF process took the session over (its client resumed there): this one lets go, saving nothing. */
  | { kind: "moved" };

/** The connection a session is talking to now (a WebSocket of the page or of /v1/realtime). */
export interface LiveClient {
  ready(info: { sessionId: string; model: string; maxSeconds: number; audioBytes: number; resumed: boolean; settled: LiveWordOut[] }): void;
  words(update: { settled: LiveWordOut[]; partial: LiveWordOut[]; audioSeconds: number; flushed: boolean }): void;
  /** The session is over (saved, refused or suspended); called after the save. */
  ended(outcome: LiveOutcome): void;
  /** Another connection resumed this session (this one is likely half-dead). */
  replaced(): void;
}

export interface LiveSessionOptions {
  live: Client<typeof LiveTranscriptionService>;
  pipeline: DeveloperPipeline;
  records: LiveRecords;
  maxSeconds: number;
  /** How long a session whose client vanished waits for it to come back; 0: it ends at once. */
  resumeMs: number;
  logger: Logger;
}

export interface LiveSettings {
  userId: string;
  model: string;
  language: string;
  diarize: boolean;
  name?: string | undefined;
}

/** Less than this is no recording: nothing is saved. */
const MIN_SAVED_SECONDS = 0.5;
const BYTES_PER_SECOND = 32_000;
/** A resumed stream re-hears the audio after the last settled word, but never more than this. */
const MAX_REPLAY_SECONDS = 20;

/**
 * One live session as the BFF runs it (decisions 0030, 0037). The caller's audio goes to
 * disk as it arrives and on to a live worker's gRPC stream; words come back to the client;
 * settled words are kept on disk beside the audio as they settle. When the client vanishes
 * without stopping, the worker's slot is freed at once and the session waits `resumeMs`
 * for the client to resume it (same id, audio from the offset the BFF acknowledged), on
 * this BFF or, after a restart, the next one; a resumed session opens a new worker stream
 * that re-hears the audio after the last settled word. However it ends (stop, the worker
 * failing, the client not coming back, the session's limit) the audio becomes a file and
 * a normal transcription, whose batch pass replaces the settled live text; only a refusal
 * (no free slot) saves nothing.
 */
export class LiveSession {
  readonly done: Promise<LiveOutcome>;
  private resolveDone!: (outcome: LiveOutcome) => void;
  private client: LiveClient | undefined;
  private worker: WorkerStream | undefined;
  private grace: NodeJS.Timeout | undefined;
  /** stop asked (or the limit reached): no more audio, the worker settles the rest. */
  private stopping = false;
  private finished = false;
  /** Saved (or let go): this process has nothing more to do with it, not even renew its lease. */
  private ended = false;

  private constructor(
    private readonly options: LiveSessionOptions,
    readonly record: LiveRecord,
    private readonly spool: WavSpool,
    private readonly lease: SessionLease,
    private readonly onEnd: (session: LiveSession) => void,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** A new session for `client`: its record and spool are on disk before any audio arrives. */
  static open(options: LiveSessionOptions, settings: LiveSettings, client: LiveClient, onEnd: (session: LiveSession) => void): LiveSession {
    const record: LiveRecord = { id: randomUUID(), ...settings, settled: [] };
    const spool = options.records.create(record);
    const lease = SessionLease.take(options.records.dir, record.id);
    if (!lease) throw new Error("a new live session's lease was taken"); // a fresh random id: never
    const session = new LiveSession(options, record, spool, lease, onEnd);
    session.attach(client, false);
    return session;
  }

  /** A session another BFF process left on disk (or held until its client resumed here): waits for its client, then is saved. */
  static adopt(options: LiveSessionOptions, record: LiveRecord, spool: WavSpool, lease: SessionLease, onEnd: (session: LiveSession) => void): LiveSession {
    const session = new LiveSession(options, record, spool, lease, onEnd);
    // Its holder died while saving it: the session was over, only the saving is left to do.
    if (record.saving) void session.finish({ kind: "stopped", reason: "client_gone", audioSeconds: spool.seconds });
    else session.waitForClient();
    return session;
  }

  get id(): string {
    return this.record.id;
  }

  get userId(): string {
    return this.record.userId;
  }

  /** PCM bytes stored: what the client may forget, and where a resumed client goes on from. */
  get audioBytes(): number {
    return this.spool.audioBytes;
  }

  get open(): boolean {
    return !this.finished && !this.stopping;
  }

  isClient(client: LiveClient): boolean {
    return this.client === client;
  }

  /** The client came back (after a drop, or to another BFF process). */
  resume(client: LiveClient): void {
    if (!this.open) return;
    const previous = this.client;
    if (previous) {
      this.client = undefined;
      this.worker?.cancel();
      this.worker = undefined;
      previous.replaced();
    }
    this.attach(client, true);
  }

  /** 16 kHz mono s16le PCM. */
  audio(pcm: Uint8Array): void {
    if (!this.open) return;
    // Another replica took the session over: the file is its now (a half-dead connection still delivering here).
    if (!this.lease.held()) {
      this.relinquish();
      return;
    }
    this.spool.append(pcm);
    this.worker?.audio(pcm);
    if (this.spool.seconds >= this.options.maxSeconds) this.stop();
  }

  flush(): void {
    if (this.open) this.worker?.flush();
  }

  stop(): void {
    if (!this.open) return;
    this.stopping = true;
    if (this.worker) this.worker.stop();
    else void this.finish({ kind: "stopped", reason: "stop", audioSeconds: this.spool.seconds });
  }

  /** The client's connection closed without stop: free the slot, wait for it to resume. */
  detach(client: LiveClient): void {
    if (this.client !== client || this.finished) return;
    this.client = undefined;
    if (this.stopping) return; // the worker settles the end; the session is saved without a listener
    this.worker?.cancel();
    this.worker = undefined;
    this.waitForClient();
  }

  /** This BFF is stopping: the session stays on disk (record and audio) for the next one. */
  suspend(): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.grace);
    this.worker?.cancel();
    this.worker = undefined;
    this.ended = true;
    this.spool.release();
    this.lease.release();
    const client = this.client;
    this.client = undefined;
    this.onEnd(this);
    client?.ended({ kind: "suspended" });
    this.resolveDone({ kind: "suspended" });
  }

  /**
   * Called every heartbeat by the sessions of this process: shows the other replicas this
   * one is alive, or, when another took the session over, lets it go. False once it is let go.
   */
  heartbeat(): boolean {
    if (this.ended) return false;
    if (!this.lease.held()) {
      if (!this.finished) this.relinquish();
      return false;
    }
    // Also while it is being saved (an upload can outlast the stale limit): nobody else saves it again.
    this.lease.renew();
    return true;
  }

  /** Another BFF process holds the session now: stop, touch nothing on disk, tell the client (if any) it was replaced. */
  private relinquish(): void {
    if (this.finished) return;
    this.finished = true;
    this.ended = true;
    clearTimeout(this.grace);
    this.worker?.cancel();
    this.worker = undefined;
    this.spool.release();
    const client = this.client;
    this.client = undefined;
    this.onEnd(this);
    this.options.logger.info({ sessionId: this.id }, "live session taken over by another BFF process");
    client?.replaced();
    this.resolveDone({ kind: "moved" });
  }

  private waitForClient(): void {
    if (this.options.resumeMs <= 0) {
      void this.finish({ kind: "stopped", reason: "client_gone", audioSeconds: this.spool.seconds });
      return;
    }
    clearTimeout(this.grace);
    this.grace = setTimeout(() => {
      if (!this.client) void this.finish({ kind: "stopped", reason: "client_gone", audioSeconds: this.spool.seconds });
    }, this.options.resumeMs);
    this.grace.unref();
  }

  private attach(client: LiveClient, resumed: boolean): void {
    clearTimeout(this.grace);
    this.client = client;
    void this.follow(client, resumed);
  }

  /** Runs worker streams for `client` until the session ends or the client goes. */
  private async follow(client: LiveClient, resumed: boolean): Promise<void> {
    const { options, record } = this;
    for (let attempt = 0; ; attempt++) {
      if (this.client !== client || this.finished) return;
      // A resumed stream starts at the last settled word, so the words heard after it settle again.
      const settledEnd = record.settled.at(-1)?.end ?? 0;
      const from = resumed ? Math.max(Math.floor(settledEnd * 16_000) * 2, this.spool.audioBytes - MAX_REPLAY_SECONDS * BYTES_PER_SECOND, 0) : 0;
      const stream = new WorkerStream(
        options.live,
        { userId: record.userId, model: record.model, language: record.language },
        // The deadline of the whole stream: the longest session and time to settle its end.
        (options.maxSeconds + 120) * 1000,
        from / BYTES_PER_SECOND,
      );
      const replay = from < this.spool.audioBytes ? this.spool.read(from) : undefined;
      for (let at = 0; replay && at < replay.length; at += BYTES_PER_SECOND) stream.audio(replay.subarray(at, at + BYTES_PER_SECOND));
      this.worker = stream;
      const end = await stream.run({
        ready: ({ model, maxSeconds }) => {
          if (this.client !== client) return;
          client.ready({
            sessionId: record.id,
            model,
            maxSeconds: Math.min(maxSeconds, options.maxSeconds),
            audioBytes: this.spool.audioBytes,
            resumed,
            settled: resumed ? record.settled : [],
          });
        },
        words: (update) => {
          if (this.worker !== stream) return;
          if (update.settled.length > 0) {
            if (!this.lease.held()) return this.relinquish();
            record.settled.push(...update.settled);
            options.records.save(record);
          }
          this.client?.words(update);
        },
      });
      if (this.worker !== stream || end.kind === "cancelled") return; // the client went, or another resumed
      this.worker = undefined;
      // A resume can race the release of the slot the dropped stream held.
      if (end.kind === "refused" && resumed && attempt < 10) {
        await sleep(300);
        continue;
      }
      // A resumed session has audio to keep: no slot to go on with is a failure, and it is saved.
      await this.finish(end.kind === "refused" && resumed ? this.outcomeOf({ kind: "failed", message: end.message }) : this.outcomeOf(end));
      return;
    }
  }

  private outcomeOf(end: Exclude<StreamEnd, { kind: "cancelled" }>): LiveOutcome {
    const audioSeconds = this.spool.seconds;
    switch (end.kind) {
      case "refused":
        return { kind: "refused", message: end.message };
      case "invalid":
        return { kind: "invalid", message: end.message };
      case "stopped":
        return { kind: "stopped", reason: end.reason, audioSeconds };
      case "failed":
        this.options.logger.warn({ sessionId: this.id, message: end.message }, "live session failed");
        return { kind: "failed", message: end.message, audioSeconds };
    }
  }

  private async finish(outcome: LiveOutcome): Promise<void> {
    if (this.finished) return;
    // Saved by whoever holds it: a session taken over elsewhere is that process's to save.
    if (!this.lease.held()) return this.relinquish();
    this.finished = true;
    clearTimeout(this.grace);
    this.worker?.cancel();
    this.worker = undefined;
    // A refusal before any word saves nothing: the client is told at once and may try again.
    let saved: { transcriptionId?: string; fileId?: string };
    if (outcome.kind === "refused") saved = await this.discard();
    else {
      // Over: no replica may take it up to resume it; one whose holder dies now only saves it.
      this.record.saving = true;
      this.options.records.save(this.record);
      saved = await this.save();
    }
    this.ended = true;
    this.onEnd(this);
    const final = { ...outcome, ...saved } as LiveOutcome;
    this.client?.ended(final);
    this.client = undefined;
    this.resolveDone(final);
  }

  private async discard(): Promise<Record<string, never>> {
    await this.spool.remove().catch(() => undefined);
    await this.options.records.removeRecord(this.id).catch(() => undefined);
    SessionLease.removeAll(this.options.records.dir, this.id);
    return {};
  }

  /** The audio becomes a file and a transcription like an upload's (billed, batch pass), holding the settled text until then. */
  private async save(): Promise<{ transcriptionId?: string; fileId?: string }> {
    const { spool, options, record } = this;
    let keep = false;
    try {
      await spool.close();
      if (spool.seconds < MIN_SAVED_SECONDS) return {};
      const stamp = new Date().toISOString().slice(0, 16).replace("T", " ");
      const fileName = `${(record.name ?? `Live ${stamp}`).replace(/[\\/:*?"<>|]+/g, "-").slice(0, 200)}.wav`;
      const fileId = await options.pipeline.uploadFile(record.userId, { path: spool.path, fileName, mimeType: "audio/wav", size: spool.size });
      const ready = await options.pipeline.waitUntilReady(record.userId, fileId, Date.now() + 120_000);
      if (!ready) return { fileId };
      const liveText = record.settled.map((w) => w.text).join("").trim();
      const transcriptionId = await options.pipeline.start(
        record.userId,
        fileId,
        { model: record.model, language: record.language || "auto", ...(record.diarize ? { diarize: true } : {}) },
        liveText,
      );
      return { fileId, transcriptionId };
    } catch (error) {
      keep = true;
      options.logger.error({ err: error, spool: spool.path }, "a live session's audio could not be saved; the file is kept");
      return {};
    } finally {
      if (!keep) {
        await spool.remove().catch(() => undefined);
        await options.records.removeRecord(record.id).catch(() => undefined);
        SessionLease.removeAll(options.records.dir, record.id);
      }
    }
  }
}
