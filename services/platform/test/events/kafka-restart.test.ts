/**
 * The Kafka bus keeps consuming after kafkajs gave up on its consumer while the broker was
 * down and the bus's first restart of it failed too (the broker still down): the restart is
 * tried again with backoff until the broker is back. Its own broker (deploy/kafka/kafka.sh
 * on other ports), so stopping it disturbs no other test file.
 *
 * kafkajs restarts a consumer itself after connection errors however long the broker is
 * away; it gives up ("Failed to find group coordinator", a CRASH with restart: false) only
 * when the broker answers while its group coordinator does not, a window of the broker's
 * own start and stop that no test can hit on demand. So the test gives up as kafkajs does
 * (the consumer disconnected, then CRASH with restart: false to the bus's listener); the
 * broker, its outage and every restart are real.
 */
import { Writable } from "node:stream";
import { TranscriptionCreatedSchema } from "@transcribe/proto/events/v1/events";
import kafkajs, { type Consumer, type ConsumerConfig } from "kafkajs";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newEvent, toEnvelope, type EventEnvelope } from "../../src/index.js";
import { startOwnBroker, type OwnBroker } from "../../src/testing/kafka-broker.js";
import { createTestBus, type TestBus } from "./bus-kinds.js";
import { waitFor } from "./helpers.js";
import { kafkaSkipReason, testTopicPrefix } from "./kafka-env.js";

const skip = kafkaSkipReason();
if (skip.fail) {
  describe("Kafka bus: consumer restart after an outage", () => {
    it("runs against a real broker in CI", () => {
      throw new Error(skip.fail);
    });
  });
}

describe.skipIf(Boolean(skip.reason))("Kafka bus: consumer restart after an outage", () => {
  let broker: OwnBroker;
  let bus: TestBus;
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );

  // The bus's real kafkajs consumers, each with the CRASH listener the bus put on it.
  const consumers: Array<{ consumer: Consumer; onCrash?: (event: unknown) => void }> = [];
  const createConsumer = kafkajs.Kafka.prototype.consumer;

  beforeAll(async () => {
    kafkajs.Kafka.prototype.consumer = function (this: kafkajs.Kafka, config: ConsumerConfig): Consumer {
      const consumer = createConsumer.call(this, config);
      const made: (typeof consumers)[number] = { consumer };
      consumers.push(made);
      const on = consumer.on.bind(consumer);
      consumer.on = ((name: string, listener: (event: unknown) => void) => {
        if (name === consumer.events.CRASH) made.onCrash = listener;
        return on(name as never, listener as never);
      }) as Consumer["on"];
      return consumer;
    };
    broker = await startOwnBroker();
    // Two client retries (as the fault test's publisher): a restart against the stopped broker fails within seconds.
    bus = createTestBus({ BUS_KIND: "kafka", KAFKA_BROKERS: broker.brokers, KAFKA_TOPIC_PREFIX: testTopicPrefix("restart") }, { clientRetries: 2, logger });
    await bus.start();
  }, 240_000);

  afterAll(async () => {
    kafkajs.Kafka.prototype.consumer = createConsumer;
    try {
      await bus?.stop();
    } finally {
      await broker?.stop();
    }
  }, 120_000);

  it("retries a failed consumer restart until the broker is back, then consumes what is published after it", { timeout: 240_000 }, async () => {
    const started = Date.now();
    const log = (message: string) => process.stdout.write(`[kafka restart test +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
    const seen = new Set<string>();
    await bus.subscribe("restarttest", ["transcription.jobs"], async (envelope: EventEnvelope) => {
      seen.add(envelope.id);
    });
    const created = (n: number) => toEnvelope(newEvent(TranscriptionCreatedSchema, { jobId: `restart-${n}`, userId: "u" }));
    const before = created(0);
    await bus.publish([before]);
    await waitFor(async () => seen.has(before.id), 60_000, "the first event before the outage");
    log("consuming; kafkajs gives up, the broker stops");

    // kafkajs gives up on the consumer as it does when the coordinator cannot be found: it
    // disconnects it, then reports the crash with restart: false (the class's type omits
    // the message kafkajs passes it). The broker then goes down before the bus restarts it.
    const given = consumers.at(-1)!;
    await given.consumer.disconnect();
    await broker.stopBroker();
    const GroupCoordinatorNotFound = kafkajs.KafkaJSGroupCoordinatorNotFound as unknown as new (message: string) => Error;
    given.onCrash!({
      type: "consumer.crash",
      payload: { error: new GroupCoordinatorNotFound("Failed to find group coordinator"), groupId: "restarttest", restart: false },
    });
    // Down until the bus's first restart has failed against it.
    await waitFor(async () => lines.some((l) => l.msg.startsWith("event bus: consumer restart failed")), 60_000, "the bus's first restart to fail");
    log("the first restart failed; starting the broker");
    await broker.startBroker();
    log("broker up");

    const after = Array.from({ length: 10 }, (_, i) => created(i + 1));
    // The producer reconnects on its own; a publish that falls in that is sent again, as the relay does.
    await waitFor(
      () =>
        bus.publish(after).then(
          () => true,
          () => false,
        ),
      60_000,
      "a publish after the outage",
    );
    await waitFor(async () => after.every((e) => seen.has(e.id)), 60_000, "the events published after the outage");
    log(`all ${after.length} events consumed`);
    expect(after.filter((e) => !seen.has(e.id))).toEqual([]);
  });
});
