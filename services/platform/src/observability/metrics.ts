import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from "prom-client";

export type { Counter, Gauge, Histogram };

/**
 * The process's metrics, served as Prometheus text at /metrics. One registry per process
 * (each service is its own process); every series carries a `service` label.
 */
export const metricsRegistry = new Registry();

type Without<T> = Omit<T, "registers">;

export function defineCounter<L extends string>(config: Without<CounterConfiguration<L>>): Counter<L> {
  return new Counter({ ...config, registers: [metricsRegistry] });
}

export function defineGauge<L extends string>(config: Without<GaugeConfiguration<L>>): Gauge<L> {
  return new Gauge({ ...config, registers: [metricsRegistry] });
}

export function defineHistogram<L extends string>(config: Without<HistogramConfiguration<L>>): Histogram<L> {
  return new Histogram({ ...config, registers: [metricsRegistry] });
}

/** Seconds, from a fast query to a slow upstream. */
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequestDuration = defineHistogram({
  name: "http_server_request_duration_seconds",
  help: "HTTP requests served, by method, route pattern and status code",
  labelNames: ["method", "route", "status_code"],
  buckets: latencyBuckets,
});

export const rpcClientDuration = defineHistogram({
  name: "rpc_client_duration_seconds",
  help: "Connect calls made to other services, by service, method and result code",
  labelNames: ["rpc_service", "rpc_method", "rpc_code"],
  buckets: latencyBuckets,
});

export const rpcServerDuration = defineHistogram({
  name: "rpc_server_duration_seconds",
  help: "Connect calls handled, by service, method and result code",
  labelNames: ["rpc_service", "rpc_method", "rpc_code"],
  buckets: latencyBuckets,
});

export const eventsPublished = defineCounter({
  name: "events_published_total",
  help: "Events the outbox relay handed to the event bus, by topic",
  labelNames: ["topic"],
});

export const outboxPublishFailures = defineCounter({
  name: "outbox_publish_failures_total",
  help: "Outbox relay batches the event bus refused or did not take in time (the rows stay pending)",
});

export const outboxLag = defineHistogram({
  name: "outbox_lag_seconds",
  help: "Time from an event's commit to the outbox until the bus took it",
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
});

export const eventsConsumed = defineCounter({
  name: "events_consumed_total",
  help: "Event deliveries handled, by consumer, topic and outcome (ok, error); a retry is another delivery",
  labelNames: ["consumer", "topic", "outcome"],
});

export const eventHandlerDuration = defineHistogram({
  name: "event_handler_duration_seconds",
  help: "Time an event handler ran, by consumer and topic",
  labelNames: ["consumer", "topic"],
  buckets: latencyBuckets,
});

let processMetricsFor: string | undefined;

/**
 * Labels every series with the service's name and starts the default process metrics
 * (CPU, memory, event loop lag, GC, handles). Once per process.
 */
export function startProcessMetrics(service: string): void {
  if (processMetricsFor !== undefined) return;
  processMetricsFor = service;
  metricsRegistry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: metricsRegistry });
}

/** The Prometheus text exposition of every metric. */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}

export const metricsContentType = metricsRegistry.contentType;
