import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import path from "node:path";
import { freePort, freePortBlock } from "@transcribe/platform/testing";
import { repoRoot } from "../src/config.js";

/** A fresh data directory under .data/ for one stack (`prefix` names who made it). */
export async function newStackDataDir(prefix: string): Promise<string> {
  await mkdir(path.join(repoRoot, ".data"), { recursive: true });
  return mkdtemp(path.join(repoRoot, ".data", prefix));
}

export interface OwnStackEnv extends Record<string, string> {
  DATA_DIR: string;
  BFF_PORT: string;
  SERVICE_PORT_BASE: string;
  EMBEDDED_PG_PORT: string;
  MAILDEV_SMTP_PORT: string;
  MAILDEV_WEB_PORT: string;
}

/** The launcher's variables for a stack of its own: the data directory and free ports for every listener. */
export async function ownStackEnv(dataDir: string): Promise<OwnStackEnv> {
  return {
    DATA_DIR: dataDir,
    BFF_PORT: String(await freePort()),
    SERVICE_PORT_BASE: String(await freePortBlock(16)),
    EMBEDDED_PG_PORT: String(await freePort()),
    MAILDEV_SMTP_PORT: String(await freePort()),
    MAILDEV_WEB_PORT: String(await freePort()),
  };
}

export interface RunningStack {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  pidOf(name: string): Promise<number>;
  /** Ctrl-C, as a person would; resolves with the exit code. */
  interrupt(): Promise<number | null>;
}

/** `npm start` as a child process (the launcher itself), on ports and a data dir of the test's own. */
export function startStack(env: Record<string, string>): RunningStack {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, "deploy/embedded/src/main.ts")], {
    cwd: repoRoot,
    env: { ...process.env, LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const dataDir = path.resolve(repoRoot, env.DATA_DIR ?? ".data");
  return {
    child,
    baseUrl: `http://127.0.0.1:${env.BFF_PORT}`,
    output: () => output,
    async pidOf(name) {
      return Number((await readFile(path.join(dataDir, "run", `${name}.pid`), "utf8")).trim());
    },
    interrupt() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill("SIGINT");
      });
    },
  };
}

export interface Health {
  status: number;
  body: { status: string; services: Array<{ name: string; ok: boolean; latency_ms: number; detail?: string }> };
}

export async function getHealth(baseUrl: string): Promise<Health | undefined> {
  try {
    const response = await fetch(`${baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: (await response.json()) as Health["body"] };
  } catch {
    return undefined;
  }
}

/** Polls until the predicate holds; fails with the last value seen. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  predicate: (value: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
}
