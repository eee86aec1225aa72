import { z } from "zod";
import { env } from "../config.js";
import type { Logger } from "../logger.js";
import type { DeadLetters, EventBus } from "./bus.js";
import { KafkaEventBus, parseBrokers, parseTopicPartitions } from "./kafka-bus.js";
import { PgBossEventBus } from "./pgboss-bus.js";
import { eventTopology } from "./topology.js";

/**
 * The event bus variables every service with a database reads. `EVENT_BUS` picks the
 * adapter; only that adapter's variables are required (see eventBusConfigProblems).
 */
export const eventBusConfigSchema = z.object({
  EVENT_BUS: z.enum(["embedded", "kafka"], { error: "must be embedded or kafka" }).default("embedded"),
  /** The embedded bus's own database (pg-boss); every service of one install shares it. */
  EVENT_BUS_DATABASE_URL: z.preprocess((v) => (v === "" ? undefined : v), env.postgresUrl().optional()),
  /** Comma-separated host:port list of Kafka brokers. */
  KAFKA_BROKERS: env.optionalString(),
  /** Defaults to "transcribe-<service>". */
  KAFKA_CLIENT_ID: env.optionalString(),
  KAFKA_PARTITIONS: env.positiveInt(3),
  /** Per-topic partition counts, e.g. "transcription.jobs=12,media.files=6". */
  KAFKA_TOPIC_PARTITIONS: env.optionalString(),
  KAFKA_REPLICATION_FACTOR: env.positiveInt(1),
  /** Prepended to every topic name (several installs on one cluster). */
  KAFKA_TOPIC_PREFIX: z.string().regex(/^[a-zA-Z0-9._-]*$/, "letters, digits, . _ and - only").default(""),
  /** Off where topics are managed outside the services (an operator, a chart). */
  KAFKA_CREATE_TOPICS: env.boolean(true),
});
export type EventBusConfig = z.infer<typeof eventBusConfigSchema>;

/** What the chosen adapter lacks, in loadConfig's "VARIABLE: problem" form. */
export function eventBusConfigProblems(config: EventBusConfig): string[] {
  const problems: string[] = [];
  if (config.EVENT_BUS === "embedded" && !config.EVENT_BUS_DATABASE_URL) {
    problems.push("EVENT_BUS_DATABASE_URL: required with EVENT_BUS=embedded (not set)");
  }
  if (config.EVENT_BUS === "kafka") {
    if (!config.KAFKA_BROKERS) problems.push("KAFKA_BROKERS: required with EVENT_BUS=kafka, e.g. 127.0.0.1:9092 (not set)");
    else {
      try {
        if (parseBrokers(config.KAFKA_BROKERS).length === 0) problems.push("KAFKA_BROKERS: no broker listed");
      } catch (error) {
        problems.push(`KAFKA_BROKERS: ${(error as Error).message}`);
      }
    }
    try {
      parseTopicPartitions(config.KAFKA_TOPIC_PARTITIONS);
    } catch (error) {
      problems.push(`KAFKA_TOPIC_PARTITIONS: ${(error as Error).message} (format: topic=count,topic=count)`);
    }
  }
  return problems;
}

/** The adapter the configuration names, not started yet. */
export function createEventBus(config: EventBusConfig, service: string, logger?: Logger): EventBus & DeadLetters {
  if (config.EVENT_BUS === "kafka") {
    return new KafkaEventBus({
      brokers: parseBrokers(config.KAFKA_BROKERS ?? ""),
      clientId: config.KAFKA_CLIENT_ID ?? `transcribe-${service}`,
      ...(logger ? { logger } : {}),
      partitions: config.KAFKA_PARTITIONS,
      topicPartitions: parseTopicPartitions(config.KAFKA_TOPIC_PARTITIONS),
      replicationFactor: config.KAFKA_REPLICATION_FACTOR,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      createTopics: config.KAFKA_CREATE_TOPICS,
    });
  }
  return new PgBossEventBus({
    url: config.EVENT_BUS_DATABASE_URL ?? "",
    ...(logger ? { logger } : {}),
    topology: eventTopology,
    max: 3,
    applicationName: `${service}-events`,
  });
}
