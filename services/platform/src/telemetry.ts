import type { Logger } from "./logger.js";

export interface TelemetryOptions {
  service: string;
  environment: string;
  otlpEndpoint?: string | undefined;
  sentryDsn?: string | undefined;
  logger: Logger;
}

export interface Telemetry {
  captureException(error: unknown): void;
  shutdown(): Promise<void>;
}

/**
 * Tracing and error reporting, each switched on only by its own setting so that a
 * default install sends nothing anywhere. The SDKs are imported lazily: a process that
 * reports nowhere does not pay for loading them.
 */
export async function initTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const shutdowns: Array<() => Promise<unknown>> = [];
  let capture: (error: unknown) => void = () => {};

  if (options.otlpEndpoint) {
    const { NodeSDK } = await import("@opentelemetry/sdk-node");
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    const sdk = new NodeSDK({
      serviceName: options.service,
      traceExporter: new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/$/, "")}/v1/traces` }),
    });
    sdk.start();
    shutdowns.push(() => sdk.shutdown());
    options.logger.info({ endpoint: options.otlpEndpoint }, "OpenTelemetry tracing on");
  }

  if (options.sentryDsn) {
    const Sentry = await import("@sentry/node");
    Sentry.init({
      dsn: options.sentryDsn,
      environment: options.environment,
      serverName: options.service,
      sampleRate: 0.85,
      tracesSampleRate: options.environment === "development" ? 0 : 0.25,
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
