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
