import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Logger } from "@transcribe/platform";
import { TranscriberError } from "../../domain/transcriber.js";

/** The Python wrapper around faster-whisper (see engine/whisper_engine.py). */
export const engineScript = path.resolve(import.meta.dirname, "../../../engine/whisper_engine.py");

export interface EngineFailure {
  kind: "not_found" | "bad_model" | "bad_audio" | "bad_request" | "no_device" | "engine";
  message: string;
}

export class EngineCallError extends Error {
  constructor(readonly failure: EngineFailure) {
    super(failure.message);
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onEvent?: ((event: Record<string, unknown>) => void) | undefined;
}

/**
 * One long-lived Python process that holds a loaded model, spoken to in JSON lines on
 * stdin/stdout. Calls run one at a time. If the process dies (crash, out of memory, or
 * we kill it to abandon a call), pending calls fail as transient errors and the next
 * call starts a new process.
 */
export class WhisperProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly python: string,
    private readonly logger: Logger,
    private readonly script: string = engineScript,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(this.python, ["-u", this.script], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, PYTHONUNBUFFERED: "1", HF_HUB_DISABLE_TELEMETRY: "1" },
    });
    this.child = child;
    createInterface({ input: child.stdout }).on("line", (line) => this.onLine(line));
    createInterface({ input: child.stderr }).on("line", (line) => this.logger.info({ engine: "whisper" }, line));
    const onGone = (reason: string) => {
      if (this.child !== child) return;
      this.child = undefined;
      const error = new TranscriberError("transient", `The Whisper engine stopped (${reason})`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    child.on("error", (error) => {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      const reason = missing
        ? `cannot start ${this.python}: not found; run services/transcription/engine/setup.sh and set WHISPER_PYTHON`
        : error.message;
      if (this.child !== child) return;
      this.child = undefined;
      const failure = missing ? new TranscriberError("permanent", reason) : new TranscriberError("transient", reason);
      for (const p of this.pending.values()) p.reject(failure);
      this.pending.clear();
    });
    child.on("exit", (code, signal) => onGone(signal ? `signal ${signal}` : `exit code ${code}`));
    child.stdin.on("error", () => {});
    return child;
  }

  private onLine(line: string): void {
    let message: { id?: number; ok?: boolean; result?: unknown; error?: EngineFailure; event?: string };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      this.logger.warn({ engine: "whisper", line }, "unexpected engine output");
      return;
    }
    const pending = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!pending) return;
    if (message.event) {
      pending.onEvent?.(message as Record<string, unknown>);
      return;
    }
    this.pending.delete(message.id!);
    if (message.ok) pending.resolve(message.result);
    else pending.reject(new EngineCallError(message.error ?? { kind: "engine", message: "unknown engine error" }));
  }

  /**
   * Sends one request and waits for its reply. An abort (or timeout) kills the process:
   * CTranslate2 cannot stop a running decode, and a worker must not keep burning CPU on
   * a job it no longer owns.
   */
  call<T>(
    request: Record<string, unknown>,
    options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; onEvent?: Pending["onEvent"] } = {},
  ): Promise<T> {
    const run = () => this.send<T>(request, options);
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private send<T>(
    request: Record<string, unknown>,
    options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; onEvent?: Pending["onEvent"] },
  ): Promise<T> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const child = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        this.pending.delete(id);
        cleanup();
        this.kill();
        reject(abortError(signal!));
      };
      this.pending.set(id, {
        resolve: (value) => {
          cleanup();
          resolve(value as T);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
        onEvent: options.onEvent,
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          cleanup();
          this.kill();
          reject(new TranscriberError("transient", `The Whisper engine took longer than ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
      }
      child.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }

  kill(): void {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    child.kill("SIGKILL");
    const error = new TranscriberError("transient", "The Whisper engine was stopped");
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new TranscriberError("transient", "The job was stopped");
}
