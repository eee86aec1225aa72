import type { Logger } from "@transcribe/platform";
import { sql } from "kysely";
import type { Db } from "../db/repository.js";
import { WhisperProcess } from "../engines/local/whisper-process.js";
import { percentOf } from "../provision/progress.js";
import { readStatus } from "../provision/status-file.js";

export type EngineState =
  | { state: "ready"; reason: string }
  | { state: "preparing"; reason: string }
  | { state: "unavailable"; reason: string };

/** Rows older than this are from a worker that stopped reporting (crashed, scaled in). */
export const ENGINE_REPORT_FRESH_SECONDS = 60;

export interface EngineStateOptions {
  python: string;
  /** The launcher's provisioning progress (ENGINE_STATUS_FILE); unset outside `npm start`. */
  statusFile?: string | undefined;
  db: Db;
  owner: string;
  logger: Logger;
  /** How often to look again while not ready / once ready. */
  pollMs?: number;
  readyPollMs?: number;
}

/**
 * Whether this worker's local engine can run now, and if not why: the launcher's
 * provisioning progress while it prepares (venv, default model), else whether the engine
 * actually starts (a ping through the real Python process). Reported into
 * `transcription_engines`, which the API's model list and the BFF's health read, and used
 * by the job runner to hold local jobs until the engine is ready.
 */
export class EngineStateMonitor {
  #state: EngineState = { state: "preparing", reason: "Preparing the speech engine… (checking it)" };
  #timer: NodeJS.Timeout | undefined;
  #pinged = false;
  #stopped = false;
  #changed = new Set<() => void>();

  constructor(private readonly options: EngineStateOptions) {}

  get current(): EngineState {
    return this.#state;
  }

  /** Resolves at the next state change (or after `ms`), for a job waiting on the engine. */
  changed(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#changed.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#changed.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  async refresh(): Promise<EngineState> {
    const next = await this.#observe();
    const before = this.#state;
    this.#state = next;
    if (before.state !== next.state || before.reason !== next.reason) {
      const log = next.state === "ready" ? this.options.logger.info.bind(this.options.logger) : this.options.logger.warn.bind(this.options.logger);
      log({ engine: next.state, reason: next.reason }, next.state === "ready" ? "local Whisper engine ready" : `local Whisper engine ${next.state}: ${next.reason}`);
      for (const notify of [...this.#changed]) notify();
    }
    await this.#report().catch((error: unknown) => this.options.logger.warn({ err: error }, "could not record the engine state"));
    return next;
  }

  async #observe(): Promise<EngineState> {
    const provisioning = readStatus(this.options.statusFile);
    if (provisioning?.state === "preparing") {
      const percent = percentOf(provisioning);
      return { state: "preparing", reason: `Preparing the speech engine…${percent !== undefined ? ` ${percent}%` : ""} (${provisioning.message})` };
    }
    if (provisioning?.state === "unavailable") return { state: "unavailable", reason: provisioning.message };
    if (this.#pinged) return this.#state;
    const engine = new WhisperProcess(this.options.python, this.options.logger);
    try {
      const info = await engine.call<{ faster_whisper: string; ctranslate2: string }>({ op: "ping" }, { timeoutMs: 60_000 });
      this.#pinged = true;
      return { state: "ready", reason: `faster-whisper ${info.faster_whisper}, ctranslate2 ${info.ctranslate2} (${this.options.python})` };
    } catch (error) {
      return {
        state: "unavailable",
        reason:
          `The local Whisper engine cannot start (${this.options.python}: ${(error as Error).message}); ` +
          "npm start prepares it, or run services/transcription/engine/setup.sh and set WHISPER_PYTHON",
      };
    } finally {
      await engine.close();
    }
  }

  async #report(): Promise<void> {
    const { db, owner } = this.options;
    const { state, reason } = this.#state;
    await db
      .insertInto("transcription_engines")
      .values({ owner, state, reason, updated_at: sql<Date>`now()` })
      .onConflict((oc) => oc.column("owner").doUpdateSet({ state, reason, updated_at: sql<Date>`now()` }))
      .execute();
  }

  start(): void {
    const tick = async () => {
      if (this.#stopped) return;
      await this.refresh().catch((error: unknown) => this.options.logger.warn({ err: error }, "engine check failed"));
      if (this.#stopped) return;
      const wait = this.#state.state === "ready" ? (this.options.readyPollMs ?? 15_000) : (this.options.pollMs ?? 1_000);
      this.#timer = setTimeout(() => void tick(), wait);
    };
    void tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.options.db.deleteFrom("transcription_engines").where("owner", "=", this.options.owner).execute().catch(() => {});
  }
}

/**
 * The local engine as the API sees it: ready when any fresh worker is ready, else
 * preparing (with the most advanced progress), else unavailable with a reason; undefined
 * when no worker has reported (the API then judges by the model files alone).
 */
export async function latestEngineState(db: Db): Promise<EngineState | undefined> {
  const rows = await db
    .selectFrom("transcription_engines")
    .select(["state", "reason"])
    .where("updated_at", ">", sql<Date>`now() - make_interval(secs => ${ENGINE_REPORT_FRESH_SECONDS})`)
    .orderBy("updated_at", "desc")
    .execute();
  return rows.find((r) => r.state === "ready") ?? rows.find((r) => r.state === "preparing") ?? rows[0];
}
