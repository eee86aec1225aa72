/**
 * Loaded before a service's entry point:
 *
 *   node --import tsx --import @transcribe/platform/telemetry-preload services/<name>/src/main.ts
 *
 * ES module imports are bound when the entry point is linked, before any of its code
 * runs, so instrumentation enabled from runService() would come too late to patch pg,
 * kafkajs or the http module the Connect transport imported. This module registers the
 * import-in-the-middle loader hook (limited to the instrumented modules) and the
 * instrumentations first. Without OTEL_EXPORTER_OTLP_ENDPOINT it does nothing at all.
 */
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { register } = await import("node:module");
  const { enableInstrumentations, instrumentedModules } = await import("./instrumentations.js");
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, { data: { include: instrumentedModules } });
  await enableInstrumentations("preload");
  // http must first be loaded as an ES module: the instrumentation patches the module
  // once, and when a CommonJS require (fastify's) comes first only require()'s object is
  // patched, never the ES namespace the Connect transport calls http.request through.
  // Patched this way round, the namespace and require()'s object (its default) both are.
  await import("node:http");
  await import("node:https");
}

export {};
