import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
const script = path.join(import.meta.dirname, "fixtures/contract-consumer.ts");

export interface ChildConsumer {
  child: ChildProcess;
  /** Resolves with the first stdout line matching the pattern (seen before or after the call). */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  lines(): readonly string[];
  exited: Promise<NodeJS.Signals | number | null>;
  stderr(): string;
  alive(): boolean;
}

/** Starts fixtures/contract-consumer.ts in its own Node process (see there for the env it reads). */
export function startChildConsumer(env: Record<string, string | undefined>): ChildConsumer {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seen: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    seen.push(line);
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    lines: () => seen,
    alive: () => child.exitCode === null && child.signalCode === null,
    line(pattern, timeoutMs = 30_000) {
      const found = seen.find((l) => pattern.test(l));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`No line ${pattern} within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
        void exited.then((how) => reject(new Error(`Consumer exited (${how}) before ${pattern}; stderr:\n${stderr}`)));
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
  };
}
