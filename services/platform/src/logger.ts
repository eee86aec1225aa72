import { isSpanContextValid, trace } from "@opentelemetry/api";
import { pino, type Logger } from "pino";
import { currentRequestId } from "./request-context.js";

export type { Logger };

const { chindingsSym } = pino.symbols;

/**
 * Fields every line gets from where it was written: the trace and span ids of the active
 * span (so a log line leads to its trace and back), and the request id. Fastify's
 * per-request loggers already carry `reqId`; repeating it would write the key twice.
 */
function correlationFields(_object: object, _level: number, logger: Logger): Record<string, string> {
  const fields: Record<string, string> = {};
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    fields.trace_id = span.traceId;
    fields.span_id = span.spanId;
  }
  const requestId = currentRequestId();
  if (requestId) {
    const bindings = (logger as unknown as Record<symbol, string | undefined>)[chindingsSym];
    if (!bindings?.includes('"reqId":')) fields.reqId = requestId;
  }
  return fields;
}

/**
 * One JSON logger per process. The embedded launcher prefixes and pretty-prints lines;
 * in the cluster they go to stdout as they are.
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: correlationFields,
    redact: {
      paths: ["req.headers.cookie", "req.headers.authorization", "*.password", "*.token"],
      censor: "[redacted]",
    },
  });
}
