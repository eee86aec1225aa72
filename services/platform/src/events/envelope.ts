import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampDate, timestampNow } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { AppError } from "../errors.js";
import { currentTraceparent } from "../observability/tracing.js";
import { catalogEntry, eventCatalog, eventRegistry, topics, type EventMessage, type EventSchema, type Topic } from "./catalog.js";

/**
 * The one shape an event has between its producer and its consumers: the outbox row,
 * the pg-boss job and (later) the Kafka record all carry exactly these fields. The
 * routing fields sit beside the payload so that the relay and the bus never need to
 * decode protobuf; only the consumer does.
 */
export interface EventEnvelope {
  /** The event's own id (uuid); consumers record it to make redelivery harmless. */
  readonly id: string;
  /** Full protobuf type name, e.g. "transcribe.events.v1.FileUploaded". */
  readonly type: string;
  readonly topic: Topic;
  /** Partition key: the aggregate id. */
  readonly key: string;
  readonly occurredAt: Date;
  /** The protobuf binary encoding of the message. */
  readonly payload: Uint8Array;
  /**
   * W3C trace context of the span the event belongs to (the one that wrote it, then its
   * publish span), so that consumers continue the producer's trace; absent when tracing
   * is off.
   */
  readonly traceparent?: string;
}

/** The envelope as JSON (pg-boss job data, Kafka headers + value, logs). */
export interface EventEnvelopeJson {
  id: string;
  type: string;
  topic: Topic;
  key: string;
  /** ISO 8601. */
  occurredAt: string;
  /** Base64 of the protobuf binary. */
  payload: string;
  traceparent?: string;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/**
 * Creates an event message with a fresh id (uuid v4) and the current time, unless the
 * caller passes its own (tests, replays).
 */
export function newEvent<Desc extends EventSchema>(schema: Desc, fields: MessageInitShape<Desc>): MessageShape<Desc> {
  const message = create(schema, fields) as MessageShape<Desc> & EventMessage;
  if (!message.id) message.id = randomUUID();
  if (!message.timestamp) message.timestamp = timestampNow();
  return message;
}

/** The spec's `async` flag defaults to true; proto3 can only express that as "unset". */
export function isAsync(event: { async?: boolean | undefined }): boolean {
  return event.async ?? true;
}

/**
 * Wraps an event for the outbox and the bus, resolving its topic and key from the
 * catalog, with the active span's trace context.
 */
export function toEnvelope(event: EventMessage): EventEnvelope {
  const entry = catalogEntry(event.$typeName);
  if (!isUuid(event.id)) {
    throw new AppError("invalid_argument", `Event ${event.$typeName} needs a uuid id (got "${event.id}"); use newEvent()`);
  }
  const key = entry.key(event);
  if (!key) throw new AppError("invalid_argument", `Event ${event.$typeName} ${event.id} has an empty partition key`);
  const traceparent = currentTraceparent();
  return {
    id: event.id,
    type: event.$typeName,
    topic: entry.topic,
    key,
    occurredAt: event.timestamp ? timestampDate(event.timestamp) : new Date(),
    payload: toBinary(entry.schema, event),
    ...(traceparent ? { traceparent } : {}),
  };
}

/** The typed message inside an envelope. */
export function decodeEvent(envelope: EventEnvelope): EventMessage {
  const schema = eventCatalog.has(envelope.type) ? eventRegistry.getMessage(envelope.type) : undefined;
  if (!schema) throw new AppError("invalid_argument", `Unknown event type: ${envelope.type}`);
  return fromBinary(schema, envelope.payload) as EventMessage;
}

export function envelopeToJson(envelope: EventEnvelope): EventEnvelopeJson {
  return {
    id: envelope.id,
    type: envelope.type,
    topic: envelope.topic,
    key: envelope.key,
    occurredAt: envelope.occurredAt.toISOString(),
    payload: Buffer.from(envelope.payload.buffer, envelope.payload.byteOffset, envelope.payload.byteLength).toString("base64"),
    ...(envelope.traceparent ? { traceparent: envelope.traceparent } : {}),
  };
}

const envelopeJsonSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  topic: z.enum(topics),
  key: z.string(),
  occurredAt: z.iso.datetime({ offset: true }),
  payload: z.base64(),
  // Not validated further: a malformed one only starts a new trace.
  traceparent: z.string().max(256).optional(),
});

/** Parses (and checks) an envelope that crossed a process boundary as JSON. */
export function envelopeFromJson(json: unknown): EventEnvelope {
  const parsed = envelopeJsonSchema.safeParse(json);
  if (!parsed.success) {
    throw new AppError("invalid_argument", `Malformed event envelope: ${z.prettifyError(parsed.error)}`);
  }
  const { payload, occurredAt, traceparent, ...rest } = parsed.data;
  return {
    ...rest,
    occurredAt: new Date(occurredAt),
    payload: new Uint8Array(Buffer.from(payload, "base64")),
    ...(traceparent ? { traceparent } : {}),
  };
}
