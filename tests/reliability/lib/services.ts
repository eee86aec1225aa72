import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { SupervisedProcess } from "@transcribe/embedded/supervisor";
import { repoRoot } from "@transcribe/embedded/config";

export interface SupervisedGroup {
  /** The current pid of a process (it changes when the supervisor starts it again). */
  pidOf(name: string): Promise<number | undefined>;
  /** SIGKILL: no shutdown hook runs, leases and transactions are left as they were. */
  kill9(name: string): Promise<number | undefined>;
  logTail(chars?: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `processes` under the launcher's supervisor (lib/supervise.ts) in a child
 * process; everything they print goes to `logFile`.
 */
export function startSupervised(options: {
  processes: SupervisedProcess[];
  pidDir: string;
  logFile: string;
  restartDelayMs: number;
}): SupervisedGroup {
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "supervise.ts")], {
    cwd: repoRoot,
    env: {
      ...process.env,
      SUPERVISE_SPEC: JSON.stringify({ pidDir: options.pidDir, restartDelayMs: options.restartDelayMs, processes: options.processes }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const pidOf = async (name: string) => {
    try {
      const pid = Number((await readFile(path.join(options.pidDir, `${name}.pid`), "utf8")).trim());
      return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    pidOf,
    async kill9(name) {
      const pid = await pidOf(name);
      if (pid) process.kill(pid, "SIGKILL");
      return pid;
    },
    async logTail(chars = 6_000) {
      const text = await readFile(options.logFile, "utf8").catch(() => "");
      return text.slice(-chars);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until GET url answers 200 (a service's /readyz: its database and bus answer). */
export async function waitReady(url: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(3_000) }).then((r) => r.ok, () => false);
    if (ok) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Retries `action` until it succeeds or `timeoutMs` passes (a client riding out an outage). */
export async function retrying<T>(what: string, action: () => Promise<T>, timeoutMs: number, onRetry?: (error: unknown) => void): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await action();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} still failing after ${timeoutMs} ms: ${(error as Error).message}`);
      onRetry?.(error);
      await new Promise((r) => setTimeout(r, Math.min(2_000, 200 * attempt)));
    }
  }
}
