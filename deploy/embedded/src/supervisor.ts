import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { colorFor, formatLine } from "./log-format.js";

export interface SupervisedProcess {
  name: string;
  entry: string;
  env: Record<string, string>;
}

export interface SupervisorOptions {
  cwd: string;
  pidDir: string;
  restartDelayMs: number;
  prettyLogs: boolean;
  /** Where the launcher's own messages go. */
  log: (message: string) => void;
}

const STOP_TIMEOUT_MS = 15_000;
/** A process that stayed up this long is considered healthy again: its backoff resets. */
const STABLE_AFTER_MS = 60_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Runs each service as its own Node process with prefixed logs and brings back any
 * process that exits while the launcher runs (after a delay that doubles on repeated
 * crashes), so a stopped or crashed service shows up in health and then recovers.
 */
export class Supervisor {
  readonly #children = new Map<string, ChildProcess>();
  readonly #restartDelay = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  async start(processes: readonly SupervisedProcess[]): Promise<void> {
    await mkdir(this.options.pidDir, { recursive: true });
    for (const [index, spec] of processes.entries()) this.#spawn(spec, index);
  }

  pidOf(name: string): number | undefined {
    return this.#children.get(name)?.pid;
  }

  #spawn(spec: SupervisedProcess, index: number): void {
    const color = colorFor(spec.name, index);
    const prefix = color(`[${spec.name}]`.padEnd(23));
    // The preload patches pg, kafkajs and http for tracing before the entry point loads;
    // it does nothing unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
    const child = spawn(process.execPath, ["--import", "tsx", "--import", "@transcribe/platform/telemetry-preload", spec.entry], {
      cwd: this.options.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#children.set(spec.name, child);
    const startedAt = Date.now();
    const pidFile = path.join(this.options.pidDir, `${spec.name}.pid`);
    if (child.pid) void writeFile(pidFile, `${child.pid}\n`);

    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        process.stdout.write(`${formatLine(prefix, line, this.options.prettyLogs)}\n`);
      });
    }

    child.on("exit", (code, signal) => {
      if (this.#children.get(spec.name) === child) this.#children.delete(spec.name);
      void rm(pidFile, { force: true });
      if (this.#stopping) return;
      const stable = Date.now() - startedAt > STABLE_AFTER_MS;
      const delay = stable ? this.options.restartDelayMs : (this.#restartDelay.get(spec.name) ?? this.options.restartDelayMs);
      this.#restartDelay.set(spec.name, Math.min(delay * 2, MAX_RESTART_DELAY_MS));
      this.options.log(
        `${spec.name} exited (${signal ?? `code ${code}`}); starting it again in ${Math.round(delay / 100) / 10} s`,
      );
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (!this.#stopping) this.#spawn(spec, index);
      }, delay);
      this.#timers.add(timer);
    });
  }

  /** SIGTERM to every process, then SIGKILL to any still running after the timeout. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const timer of this.#timers) clearTimeout(timer);
    const exits = [...this.#children.values()].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
          child.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    );
    await Promise.all(exits);
  }
}
