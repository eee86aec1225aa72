/**
 * The libraries whose calls become spans. Their patches must be in place before the
 * libraries load, which for ES modules means before the entry point is evaluated: see
 * preload.ts. Nothing here is imported, and so nothing is paid for, unless tracing is on.
 */

/** Modules the ESM loader hook intercepts (every other import goes through untouched). */
export const instrumentedModules = ["http", "https", "pg", "pg-pool", "kafkajs", "undici"];

/** Probes and scrapers call these every few seconds; a trace each would drown the rest. */
const untracedPaths = new Set(["/healthz", "/readyz", "/metrics"]);

type HowEnabled = "preload" | "late";

// On globalThis rather than in a module variable: the preload and the service may load
// this file as two module instances (a package specifier and a relative import).
const flag = Symbol.for("transcribe.telemetry.instrumentations");
type FlaggedGlobal = typeof globalThis & { [flag]?: HowEnabled };

/** How the instrumentations were enabled in this process, if they were. */
export function instrumentationsEnabled(): HowEnabled | undefined {
  return (globalThis as FlaggedGlobal)[flag];
}

/**
 * Patches http (inbound requests and the Connect clients' outbound calls), pg, kafkajs
 * and undici (fetch). Spans go to whatever tracer provider is registered later; until
 * then they are no-ops. Idempotent.
 */
export async function enableInstrumentations(how: HowEnabled): Promise<void> {
  const global = globalThis as FlaggedGlobal;
  if (global[flag]) return;
  global[flag] = how;
  const [{ registerInstrumentations }, { HttpInstrumentation }, { PgInstrumentation }, { KafkaJsInstrumentation }, { UndiciInstrumentation }] =
    await Promise.all([
      import("@opentelemetry/instrumentation"),
      import("@opentelemetry/instrumentation-http"),
      import("@opentelemetry/instrumentation-pg"),
      import("@opentelemetry/instrumentation-kafkajs"),
      import("@opentelemetry/instrumentation-undici"),
    ]);
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => untracedPaths.has((request.url ?? "").split("?")[0] ?? ""),
      }),
      // Queries outside any span are the relay's, the bus's and the workers' polls: one
      // root trace per poll every second would be noise, not insight.
      new PgInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
      new UndiciInstrumentation(),
    ],
  });
}
