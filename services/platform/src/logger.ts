import { pino, type Logger } from "pino";

export type { Logger };

/**
 * One JSON logger per process. The embedded launcher prefixes and pretty-prints lines;
 * in the cluster they go to stdout as they are.
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ["req.headers.cookie", "req.headers.authorization", "*.password", "*.token"],
      censor: "[redacted]",
    },
  });
}
