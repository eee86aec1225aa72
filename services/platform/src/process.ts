import type { z } from "zod";
import { loadConfig } from "./config.js";
import { ConfigError } from "./errors.js";
import type { Logger } from "./logger.js";

/** Loads configuration, or prints every bad variable and exits 1: a process never starts half-configured. */
export function loadConfigOrExit<S extends z.ZodObject>(processName: string, schema: S): z.infer<S> {
  try {
    return loadConfig(schema);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${processName}: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Runs the steps in order on SIGTERM or SIGINT, then exits 0; exits 1 if they take
 * longer than the grace period, so an orchestrator is never left waiting.
 */
export function stopOnSignals(logger: Logger, graceMs: number, steps: Array<() => Promise<unknown>>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    setTimeout(() => {
      logger.error("shutdown took too long; exiting");
      process.exit(1);
    }, graceMs + 5_000).unref();
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        logger.error({ err: error }, "shutdown step failed");
      }
    }
    logger.info("stopped");
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
