import { randomUUID } from "node:crypto";
import { skipWhen } from "../../src/testing/skips.js";

/**
 * Whether the Kafka tests can run: they need KAFKA_BROKERS (start a broker with
 * `deploy/kafka/kafka.sh start`, then KAFKA_BROKERS=127.0.0.1:9092). Without it they are
 * skipped with the reason printed, except in CI with REQUIRE_KAFKA=1, where a missing
 * broker is a failure: CI must not pass by testing nothing.
 */
export function kafkaSkipReason(): { reason?: string; fail?: string } {
  if (process.env.KAFKA_BROKERS?.trim()) return {};
  return skipOrFail("KAFKA_BROKERS is not set (run `deploy/kafka/kafka.sh start` and export KAFKA_BROKERS=127.0.0.1:9092)");
}

/** A reason to skip, which becomes a failure in CI with REQUIRE_KAFKA=1. */
export function skipOrFail(reason: string): { reason: string; fail?: string } {
  const ci = Boolean(process.env.CI) && process.env.CI !== "false" && process.env.CI !== "0";
  if (ci && process.env.REQUIRE_KAFKA === "1") return { reason, fail: `CI requires Kafka (REQUIRE_KAFKA=1) but ${reason}` };
  skipWhen("kafka", reason);
  return { reason };
}

/** A topic prefix of its own for each test file run: runs never see each other's events. */
export function testTopicPrefix(suite: string): string {
  return `test-${suite}-${Date.now().toString(36)}-${randomUUID().slice(0, 6)}.`;
}
