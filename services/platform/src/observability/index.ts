export * from "./metrics.js";
export * from "./http.js";
export * from "./rpc.js";
export * from "./events.js";
export { contextFromTraceparent, currentTraceparent, recordError, SpanKind, tracer, withSpan, type SpanOptions } from "./tracing.js";
