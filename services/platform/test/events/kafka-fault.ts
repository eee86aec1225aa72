import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { TranscriptionCreatedSchema } from "@transcribe/proto/events/v1/events";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOutboxRelay, enqueueEvents, newEvent, type OutboxRelay } from "../../src/index.js";
import { createTestBus, type BusEnv, type TestBus } from "./bus-kinds.js";
import { startChildConsumer, type ChildConsumer } from "./child-consumer.js";
import { count, createTestDatabases, waitFor, type TestDatabases } from "./helpers.js";
import { kafkaSkipReason, skipOrFail, testTopicPrefix } from "./kafka-env.js";

const run = promisify(execFile);
const kafkaScript = path.resolve(import.meta.dirname, "../../../../deploy/kafka/kafka.sh");
const kafka = (command: "start" | "stop" | "status") => run("bash", [kafkaScript, command], { env: process.env, timeout: 120_000 });

/**
 * Is the configured broker the one deploy/kafka/kafka.sh runs (same KAFKA_* env)? Only
 * then can this test restart it.
 */
async function scriptManagesBroker(): Promise<boolean> {
  try {
    await kafka("status");
    return true;
  } catch {
    return false;
  }
}

/**
 * Registered by bus-contract.test.ts after the Kafka contract suite, in the same file: it
 * restarts the broker, so nothing else may use Kafka while it runs (files run in parallel).
 */
export async function kafkaFaultTest(): Promise<void> {
  const brokerSkip = kafkaSkipReason();
  const skip = brokerSkip.reason
    ? brokerSkip
    : (await scriptManagesBroker())
      ? {}
      : skipOrFail(
          "the broker at KAFKA_BROKERS is not one deploy/kafka/kafka.sh runs (its status says stopped with this KAFKA_* env), so it cannot be restarted",
        );
  const skipReason = skip.reason;
  if (skipReason) process.stdout.write(`\n[kafka fault test] skipping: ${skipReason}\n`);

  describe("Kafka fault test", () => {
    if (skip.fail) {
      it("runs against a real broker in CI", () => {
        throw new Error(skip.fail);
      });
    }

    describe.skipIf(Boolean(skipReason))(
      "1,000 events through the outbox while the broker restarts once and the consumer is killed twice",
      () => {
        const total = 1_000;
        const perTransaction = 25;
        const consumer = "faulttest";
        let dbs: TestDatabases;
        let env: BusEnv;
        let publisher: TestBus;
        let relay: OutboxRelay;
        const children: ChildConsumer[] = [];

        beforeAll(async () => {
          dbs = await createTestDatabases("kafka_fault");
          env = { BUS_KIND: "kafka", KAFKA_BROKERS: process.env.KAFKA_BROKERS!, KAFKA_TOPIC_PREFIX: testTopicPrefix("fault") };
          publisher = createTestBus(env, { clientRetries: 2 });
          await publisher.start();
          relay = createOutboxRelay({
            database: dbs.service,
            bus: publisher,
            pollIntervalMs: 200,
            retryMinMs: 200,
            retryMaxMs: 2_000,
            publishTimeoutMs: 10_000,
          });
          await relay.start();
        });

        afterAll(async () => {
          for (const c of children) if (c.alive()) c.child.kill("SIGKILL");
          await relay?.stop();
          // The broker must be up again for later test files, whatever happened here.
          if (!(await scriptManagesBroker())) await kafka("start").catch(() => {});
          const cleaner = createTestBus(env, { createTopics: false });
          await cleaner
            .start()
            .then(() => (cleaner as unknown as { deleteTopics(): Promise<void> }).deleteTopics())
            .catch(() => {});
          await cleaner.stop().catch(() => {});
          await publisher?.stop();
          await dbs?.cleanup();
        });

        it("applies every event's effect exactly once", { timeout: 180_000 }, async () => {
          const started = Date.now();
          const startConsumer = async () => {
            const child = startChildConsumer({ ...env, DATABASE_URL: dbs.serviceUrl, CONSUMER: consumer, TOPIC: "transcription.jobs" });
            children.push(child);
            await child.line(/^READY$/, 60_000);
            return child;
          };
          const effects = () => count(dbs.service, sql`select count(*) as n from effects where consumer = ${consumer}`);
          const log = (message: string) =>
            process.stdout.write(`[kafka fault test +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);

          let produced = 0;
          const producing = (async () => {
            for (let i = 0; i < total; i += perTransaction) {
              await dbs.service.db.transaction().execute(async (trx) => {
                const events = Array.from({ length: perTransaction }, (_, j) =>
                  newEvent(TranscriptionCreatedSchema, { jobId: `fault-${(i + j) % 40}`, userId: `n${i + j}` }),
                );
                await enqueueEvents(trx, events);
              });
              produced += perTransaction;
              // About 25 s of producing: the broker restart falls in the middle of it.
              await new Promise((r) => setTimeout(r, 600));
            }
          })();

          let consumerProcess = await startConsumer();
          log("consumer 1 ready; producing");

          await waitFor(async () => (await effects()) >= 150, 60_000, "150 effects");
          consumerProcess.child.kill("SIGKILL");
          await consumerProcess.exited;
          log(`kill 1: consumer 1 SIGKILLed at ${await effects()} effects, ${produced} produced`);
          consumerProcess = await startConsumer();

          await waitFor(async () => produced >= 300, 60_000, "300 events produced");
          const restartAt = Date.now();
          await kafka("stop");
          log(`broker stopped at ${produced} produced, ${await effects()} effects`);
          await new Promise((r) => setTimeout(r, 2_000));
          await kafka("start");
          log(
            `broker started again (down ${((Date.now() - restartAt) / 1000).toFixed(1)}s) at ${produced} produced, ${await effects()} effects`,
          );

          await waitFor(async () => (await effects()) >= 700, 90_000, "700 effects");
          consumerProcess.child.kill("SIGKILL");
          await consumerProcess.exited;
          log(`kill 2: consumer 2 SIGKILLed at ${await effects()} effects, ${produced} produced`);
          consumerProcess = await startConsumer();

          await producing;
          await waitFor(
            async () => (await count(dbs.service, sql`select count(*) as n from platform_outbox where published_at is null`)) === 0,
            60_000,
            "the outbox to drain",
          );
          await waitFor(async () => (await effects()) >= total, 90_000, `${total} effects`);
          // Room for a wrong extra delivery to show up.
          await new Promise((r) => setTimeout(r, 2_000));

          const counts = {
            produced,
            published: await count(dbs.service, sql`select count(*) as n from platform_outbox where published_at is not null`),
            publishAttempts: await count(dbs.service, sql`select coalesce(sum(attempts), 0) as n from platform_outbox`),
            deliveries: await count(dbs.service, sql`select count(*) as n from deliveries where consumer = ${consumer}`),
            distinctDelivered: await count(
              dbs.service,
              sql`select count(distinct event_id) as n from deliveries where consumer = ${consumer}`,
            ),
            effects: await effects(),
            distinctEffects: await count(dbs.service, sql`select count(distinct event_id) as n from effects where consumer = ${consumer}`),
            eventsWithDuplicateEffects: await count(
              dbs.service,
              sql`select count(*) as n from (select event_id from effects where consumer = ${consumer} group by event_id having count(*) > 1) d`,
            ),
            processedIds: await count(dbs.service, sql`select count(*) as n from platform_processed_events where consumer = ${consumer}`),
            consumerProcesses: children.length,
            deadLetters: (await publisher.listDeadLetters({ consumer })).length,
            seconds: Math.round((Date.now() - started) / 1000),
          };
          log(`counts ${JSON.stringify(counts)}`);
          log(`redelivered (deliveries beyond one per event): ${counts.deliveries - counts.distinctDelivered}`);

          expect(counts.produced).toBe(total);
          expect(counts.published).toBe(total);
          expect(counts.effects).toBe(total);
          expect(counts.distinctEffects).toBe(total);
          expect(counts.eventsWithDuplicateEffects).toBe(0);
          expect(counts.processedIds).toBe(total);
          expect(counts.distinctDelivered).toBe(total);
          expect(counts.deadLetters).toBe(0);
          // Every event's outbox row id is the id that reached the consumer.
          expect(
            await count(
              dbs.service,
              sql`select count(*) as n from platform_outbox o where not exists (select 1 from effects e where e.event_id = o.id and e.consumer = ${consumer})`,
            ),
          ).toBe(0);

          consumerProcess.child.kill("SIGTERM");
          expect(await consumerProcess.exited).toBe(0);
        });
      },
    );
  });
}
