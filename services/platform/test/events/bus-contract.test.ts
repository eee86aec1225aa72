import { describe, it } from "vitest";
import { KafkaEventBus, parseBrokers } from "../../src/events/kafka-bus.js";
import { busContract } from "./bus-contract.js";
import { fastKafka } from "./bus-kinds.js";
import { kafkaSkipReason, testTopicPrefix } from "./kafka-env.js";
import { kafkaFaultTest } from "./kafka-fault.js";

busContract({
  name: "pg-boss",
  redeliveryTimeoutMs: 20_000,
  orderedRetries: false,
  async setup(dbs) {
    return { env: { BUS_KIND: "pgboss", EVENTS_URL: dbs.eventsUrl }, cleanup: async () => {} };
  },
});

const skip = kafkaSkipReason();
if (skip.fail) {
  describe("EventBus contract: Kafka", () => {
    it("runs against a real broker in CI", () => {
      throw new Error(skip.fail);
    });
  });
}

busContract({
  name: "Kafka",
  skip: skip.reason,
  // The killed member's partitions move once its session (6 s in tests) expires.
  redeliveryTimeoutMs: 45_000,
  orderedRetries: true,
  partitions: fastKafka.partitions,
  async setup() {
    const prefix = testTopicPrefix("contract");
    const env = { BUS_KIND: "kafka" as const, KAFKA_BROKERS: process.env.KAFKA_BROKERS!, KAFKA_TOPIC_PREFIX: prefix };
    return {
      env,
      async cleanup() {
        const bus = new KafkaEventBus({ brokers: parseBrokers(env.KAFKA_BROKERS), topicPrefix: prefix, createTopics: false });
        await bus.start();
        await bus.deleteTopics().finally(() => bus.stop());
      },
    };
  },
});

// Last, in this file: it restarts the broker (see kafka-fault.ts).
await kafkaFaultTest();
