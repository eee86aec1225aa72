import type { Topic } from "./catalog.js";
import type { EventEnvelope } from "./envelope.js";

/**
 * Handles one delivery. Delivery is at least once: the same envelope may arrive again
 * (after a crash, a timeout, a relay retry), so a handler must be idempotent; wrap it
 * with consume() to get that from the database. Throwing makes the bus retry later.
 */
export type EventHandler = (envelope: EventEnvelope) => Promise<void>;

export interface SubscribeOptions {
  /** Retries after the first failed attempt before the delivery is given up. */
  retryLimit?: number;
  /** Seconds before the first retry. */
  retryDelay?: number;
  /** Doubles the delay on every retry (with jitter). */
  retryBackoff?: boolean;
  /**
   * Seconds a delivery may stay unacknowledged before it is presumed lost (its worker
   * died) and delivered again. Must exceed the handler's longest run.
   */
  expireInSeconds?: number;
  /** Deliveries of one (consumer, topic) handled at the same time. */
  concurrency?: number;
}

/**
 * The event bus port: the embedded mode implements it with pg-boss, the cluster with
 * Kafka. Nothing here may name an adapter's types.
 *
 * A consumer name stands for a whole service (all its replicas share the work, like a
 * Kafka consumer group); every consumer subscribed to a topic gets every event on it.
 */
export interface EventBus {
  start(): Promise<void>;
  /** Resolves once the envelopes are durably stored by the bus; rejects if none were. */
  publish(envelopes: readonly EventEnvelope[]): Promise<void>;
  subscribe(consumer: string, topics: readonly Topic[], handler: EventHandler, options?: SubscribeOptions): Promise<void>;
  /** Stops taking deliveries, waits (bounded) for running handlers, closes connections. */
  stop(): Promise<void>;
  /** Round-trip to the bus's backing store; resolves with the latency in milliseconds. */
  ping(): Promise<number>;
}

/** An event a consumer gave up on after its retries, kept for inspection and replay. */
export interface DeadLetter {
  /** The adapter's reference to this dead letter (a queue job, a dead-letter record). */
  readonly ref: string;
  readonly consumer: string;
  readonly envelope: EventEnvelope;
  /** The last error's message. */
  readonly error: string;
  /** How many times the handler ran before it was given up. */
  readonly attempts: number;
  readonly failedAt: Date;
}

export interface DeadLetterFilter {
  consumer?: string;
  topic?: Topic;
  /** Only these events (envelope ids). */
  eventIds?: readonly string[];
  limit?: number;
}

/**
 * What a consumer gave up on (retries exhausted) is kept, not dropped: both adapters
 * implement this next to EventBus, and `src/events/dead-letters.ts` is its command line.
 */
export interface DeadLetters {
  /** Dead letters not replayed yet, oldest first. */
  listDeadLetters(filter?: DeadLetterFilter): Promise<DeadLetter[]>;
  /**
   * Delivers the matching dead letters again, to the consumer that gave each up and to no
   * other, with a fresh retry budget; they leave the list. Resolves with their number.
   */
  replayDeadLetters(filter?: DeadLetterFilter): Promise<number>;
}
