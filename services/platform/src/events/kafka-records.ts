import type { IHeaders, KafkaMessage, Message } from "kafkajs";
import { topics, type Topic } from "./catalog.js";
import type { EventEnvelope } from "./envelope.js";

/**
 * How an envelope travels as a Kafka record: key = the aggregate id, value = the protobuf
 * bytes untouched, and the routing fields as headers, so a consumer (or any Kafka tool)
 * can route and filter without decoding protobuf. Every field round-trips exactly.
 */
export const envelopeHeaders = {
  id: "id",
  type: "type",
  topic: "topic",
  /** ISO 8601 with milliseconds, as Date#toISOString() writes it. */
  occurredAt: "occurredAt",
  /**
   * The envelope's trace context. Not "traceparent": the kafkajs instrumentation writes
   * that one with its send span, a child of the relay's batch rather than of the event.
   */
  traceparent: "event-traceparent",
} as const;

/** Headers a dead-letter record adds to the envelope's own. */
export const deadLetterHeaders = {
  /** The consumer (group) that gave up. */
  consumer: "dlq-consumer",
  /** The last error's message (truncated). */
  error: "dlq-error",
  /** How many times the handler ran. */
  attempts: "dlq-attempts",
  failedAt: "dlq-failed-at",
  sourcePartition: "dlq-source-partition",
  sourceOffset: "dlq-source-offset",
  /** On a marker record: the dead letter (ref) that was replayed; the marker has no value. */
  replayed: "dlq-replayed",
} as const;

/**
 * On a replayed record: the only consumer that handles it; every other consumer of the
 * topic commits past it. Replaying a dead letter thus reaches the consumer that gave up
 * on it and no one else.
 */
export const replayForHeader = "replay-for";

export const deadLetterSuffix = ".dlq";

/** The Kafka topic of a catalog topic (an install or a test run may prefix them all). */
export function kafkaTopicName(topic: Topic, prefix = ""): string {
  return `${prefix}${topic}`;
}

export function deadLetterTopicName(topic: Topic, prefix = ""): string {
  return `${prefix}${topic}${deadLetterSuffix}`;
}

export function envelopeToMessage(envelope: EventEnvelope, extraHeaders: Record<string, string> = {}): Message {
  return {
    key: envelope.key,
    value: Buffer.from(envelope.payload.buffer, envelope.payload.byteOffset, envelope.payload.byteLength),
    headers: {
      [envelopeHeaders.id]: envelope.id,
      [envelopeHeaders.type]: envelope.type,
      [envelopeHeaders.topic]: envelope.topic,
      [envelopeHeaders.occurredAt]: envelope.occurredAt.toISOString(),
      ...(envelope.traceparent ? { [envelopeHeaders.traceparent]: envelope.traceparent } : {}),
      ...extraHeaders,
    },
  };
}

/** A header's value as text; Kafka allows repeated headers, the last one wins. */
export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  if (value === undefined) return undefined;
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  if (last === undefined) return undefined;
  return typeof last === "string" ? last : last.toString("utf8");
}

export class MalformedRecordError extends Error {
  override readonly name = "MalformedRecordError";
}

const topicSet: ReadonlySet<string> = new Set(topics);

/** Rebuilds the envelope of a record; throws MalformedRecordError naming what is wrong. */
export function envelopeFromMessage(message: Pick<KafkaMessage, "key" | "value" | "headers">): EventEnvelope {
  const headers = message.headers;
  const id = headerText(headers, envelopeHeaders.id);
  const type = headerText(headers, envelopeHeaders.type);
  const topic = headerText(headers, envelopeHeaders.topic);
  const occurredAt = headerText(headers, envelopeHeaders.occurredAt);
  const problems: string[] = [];
  if (!id) problems.push(`no "${envelopeHeaders.id}" header`);
  if (!type) problems.push(`no "${envelopeHeaders.type}" header`);
  if (!topic || !topicSet.has(topic)) problems.push(`"${envelopeHeaders.topic}" header is not a catalog topic (${topic ?? "missing"})`);
  const when = occurredAt ? new Date(occurredAt) : undefined;
  if (!when || Number.isNaN(when.getTime())) problems.push(`"${envelopeHeaders.occurredAt}" header is not a date (${occurredAt ?? "missing"})`);
  if (message.key === null || message.key === undefined) problems.push("no key");
  if (problems.length > 0) throw new MalformedRecordError(`Malformed event record: ${problems.join("; ")}`);
  const value = message.value ?? Buffer.alloc(0);
  const traceparent = headerText(headers, envelopeHeaders.traceparent);
  return {
    id: id!,
    type: type!,
    topic: topic as Topic,
    key: message.key!.toString("utf8"),
    occurredAt: when!,
    // A copy: kafkajs' buffers are slices of the fetch response.
    payload: new Uint8Array(value),
    ...(traceparent ? { traceparent } : {}),
  };
}
