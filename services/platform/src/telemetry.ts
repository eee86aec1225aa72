import type { Logger } from "./logger.js";
import { enableInstrumentations, instrumentationsEnabled } from "./observability/instrumentations.js";
import { startProcessMetrics } from "./observability/metrics.js";

export interface TelemetryOptions {
  service: string;
  environment: string;
  otlpEndpoint?: string | undefined;
  sentryDsn?: string | undefined;
  /** Default process metrics and the `service` label on every series (METRICS_ENABLED). */
  metrics?: boolean;
  logger: Logger;
}

export interface Telemetry {
  captureException(error: unknown): void;
  shutdown(): Promise<void>;
}

/**
 * Tracing and error reporting, each switched on only by its own setting so that a
 * default install sends nothing anywhere. The SDKs are imported lazily: a process that
 * reports nowhere does not pay for loading them. Metrics are served, not sent: see
 * observability/http.ts.
 */
export async function initTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const shutdowns: Array<() => Promise<unknown>> = [];
  let capture: (error: unknown) => void = () => {};

  if (options.metrics ?? true) startProcessMetrics(options.service);

  if (options.otlpEndpoint) {
    if (!instrumentationsEnabled()) {
      // Modules imported before this point (pg, kafkajs, the http module the Connect
      // transport bound) stay unpatched: their spans are missing until the preload is used.
      options.logger.warn(
        "OTEL_EXPORTER_OTLP_ENDPOINT is set but the process was started without " +
          "`--import @transcribe/platform/telemetry-preload`: database, Kafka and HTTP spans will be incomplete",
      );
      await enableInstrumentations("late");
    }
    const { NodeSDK } = await import("@opentelemetry/sdk-node");
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    const sdk = new NodeSDK({
      serviceName: options.service,
      traceExporter: new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/$/, "")}/v1/traces` }),
      // Metrics are scraped from /metrics and logs go to stdout; without these the SDK
      // would also push OTLP metrics and logs to the endpoint by default.
      metricReaders: [],
      logRecordProcessors: [],
    });
    sdk.start();
    shutdowns.push(() => sdk.shutdown());
    options.logger.info({ endpoint: options.otlpEndpoint }, "OpenTelemetry tracing on");
  }

  if (options.sentryDsn) {
    const Sentry = await import("@sentry/node");
    const tracing = Boolean(options.otlpEndpoint);
    Sentry.init({
      dsn: options.sentryDsn,
      environment: options.environment,
      serverName: options.service,
      sampleRate: 0.85,
      // With OTLP on, the tracer provider above owns tracing: Sentry setting up its own
      // would fight it for the global provider, so Sentry then reports errors only.
      ...(tracing
        ? { skipOpenTelemetrySetup: true }
        : { tracesSampleRate: options.environment === "development" ? 0 : 0.25 }),
    });
    capture = (error) => Sentry.captureException(error);
    shutdowns.push(() => Sentry.close(2_000));
    options.logger.info("Sentry error reporting on");
  }

  return {
    captureException: (error) => capture(error),
    shutdown: async () => {
      await Promise.allSettled(shutdowns.map((s) => s()));
    },
  };
}
