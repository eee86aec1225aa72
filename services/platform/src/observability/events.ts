import { context, isSpanContextValid, ROOT_CONTEXT, trace, type Link } from "@opentelemetry/api";
import type { EventHandler } from "../events/bus.js";
import type { EventEnvelope } from "../events/envelope.js";
import { eventHandlerDuration, eventsConsumed } from "./metrics.js";
import { contextFromTraceparent, currentTraceparent, recordError, SpanKind, tracer, withSpan } from "./tracing.js";

/**
 * Publishes through one PRODUCER span per event, each a child of the span that wrote the
 * event (the envelope's traceparent, captured when it entered the outbox). The envelopes
 * handed on carry their publish span's traceparent instead, so the consumer's span is its
 * child. When the whole batch belongs to one trace the bus's own work (a Kafka send, a
 * pg-boss insert) runs inside it too; otherwise outside any trace rather than in a wrong one.
 */
export async function publishTraced(
  envelopes: readonly EventEnvelope[],
  publish: (envelopes: EventEnvelope[]) => Promise<void>,
): Promise<void> {
  const spans = envelopes.map((envelope) =>
    tracer.startSpan(
      `publish ${envelope.topic}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          "messaging.operation.type": "send",
          "messaging.destination.name": envelope.topic,
          "messaging.message.id": envelope.id,
        },
      },
      contextFromTraceparent(envelope.traceparent),
    ),
  );
  const traced = envelopes.map((envelope, i) => {
    const traceparent = currentTraceparent(trace.setSpan(ROOT_CONTEXT, spans[i]!));
    return traceparent ? { ...envelope, traceparent } : envelope;
  });
  const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
  const batchContext = traceIds.size === 1 && spans[0] ? trace.setSpan(ROOT_CONTEXT, spans[0]) : ROOT_CONTEXT;
  try {
    await context.with(batchContext, () => publish(traced));
  } catch (error) {
    for (const span of spans) recordError(span, error);
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}

/**
 * Wraps a consumer's handler: every delivery runs in a CONSUMER span that continues the
 * event's trace (from its traceparent), linked to the transport's own span when that one
 * belongs to another trace (the kafkajs instrumentation's, which starts from the relay's
 * send); and counts into events_consumed_total and event_handler_duration_seconds.
 */
export function observeDeliveries(consumer: string, handler: EventHandler): EventHandler {
  return async (envelope) => {
    const parent = envelope.traceparent ? contextFromTraceparent(envelope.traceparent) : context.active();
    const transport = trace.getActiveSpan()?.spanContext();
    const links: Link[] =
      transport && isSpanContextValid(transport) && transport.traceId !== trace.getSpanContext(parent)?.traceId
        ? [{ context: transport }]
        : [];
    const labels = { consumer, topic: envelope.topic };
    const stop = eventHandlerDuration.startTimer(labels);
    let outcome = "error";
    try {
      await withSpan(
        `process ${envelope.topic}`,
        {
          kind: SpanKind.CONSUMER,
          parent,
          links,
          attributes: {
            "messaging.operation.type": "process",
            "messaging.destination.name": envelope.topic,
            "messaging.message.id": envelope.id,
            "messaging.consumer.group.name": consumer,
            "event.type": envelope.type,
          },
        },
        () => handler(envelope),
      );
      outcome = "ok";
    } finally {
      stop();
      eventsConsumed.inc({ ...labels, outcome });
    }
  };
}
