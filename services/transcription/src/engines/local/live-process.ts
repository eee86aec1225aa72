import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Logger } from "@transcribe/platform";

/** The streaming policy around faster-whisper (engine/live_engine.py, decision 0030). */
export const liveEngineScript = path.resolve(import.meta.dirname, "../../../engine/live_engine.py");

export interface LiveEngineWord {
  word: string;
  start: number;
  end: number;
  probability: number;
}

export type LiveEngineEvent =
  | { event: "ready"; load_seconds: number; multilingual: boolean }
  | { event: "words"; settled: LiveEngineWord[]; partial: LiveEngineWord[]; audio_seconds: number; decode_seconds: number; flushed?: boolean }
  | { event: "stopped"; audio_seconds: number }
  | { event: "error"; kind: string; message: string }
  | { event: "exit"; reason: string };

export interface LiveStartOptions {
  modelDir: string;
  language: string | undefined;
  threads: number;
  computeType: string;
  device: "cpu" | "cuda";
}

/**
 * One long-lived Python process holding a model, serving one live session at a time. The
 * slot that owns it keeps it between sessions (the model stays loaded); a session that
 * ends badly kills it, and the next session starts a fresh one.
 */
export class LiveEngineProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private listener: ((event: LiveEngineEvent) => void) | undefined;

  constructor(
    private readonly python: string,
    private readonly logger: Logger,
    private readonly script: string = liveEngineScript,
  ) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Where this session's events go (one session at a time). */
  listen(listener: ((event: LiveEngineEvent) => void) | undefined): void {
    this.listener = listener;
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(this.python, ["-u", this.script], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PYTHONUNBUFFERED: "1", HF_HUB_DISABLE_TELEMETRY: "1" },
    });
    this.child = child;
    createInterface({ input: child.stdout }).on("line", (line) => {
      let message: LiveEngineEvent;
      try {
        message = JSON.parse(line) as LiveEngineEvent;
      } catch {
        this.logger.warn({ engine: "live", line }, "unexpected engine output");
        return;
      }
      if (this.child === child) this.listener?.(message);
    });
    createInterface({ input: child.stderr }).on("line", (line) => this.logger.info({ engine: "live" }, line));
    const gone = (reason: string) => {
      if (this.child !== child) return;
      this.child = undefined;
      this.listener?.({ event: "exit", reason });
    };
    child.on("error", (error) => gone(error.message));
    child.on("exit", (code, signal) => gone(signal ? `signal ${signal}` : `exit code ${code}`));
    child.stdin.on("error", () => {});
    return child;
  }

  /** Only `start` starts a process: audio for an engine that is gone belongs to a session that is over. */
  private write(message: Record<string, unknown>): void {
    const child = message.op === "start" ? this.ensure() : this.child;
    child?.stdin.write(`${JSON.stringify(message)}\n`);
  }

  start(options: LiveStartOptions): void {
    this.write({
      op: "start",
      model_dir: options.modelDir,
      language: options.language ?? null,
      threads: options.threads,
      compute_type: options.computeType,
      device: options.device,
    });
  }

  audio(pcm: Uint8Array): void {
    this.write({ op: "audio", pcm: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString("base64") });
  }

  stop(): void {
    this.write({ op: "stop" });
  }

  flush(): void {
    this.write({ op: "flush" });
  }

  /** CTranslate2 cannot abandon a decode: a session given up on kills its process. */
  kill(): void {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill("SIGKILL");
    // A session still listening learns that its engine is gone (its exit event is ignored now).
    this.listener?.({ event: "exit", reason: "killed" });
  }
}
