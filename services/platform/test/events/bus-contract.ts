/**
 * The EventBus port's contract, one suite for every adapter: what services may rely on
 * whichever bus runs under them. bus-contract.test.ts runs it against pg-boss always and
 * against Kafka when a broker is configured.
 */
import { randomUUID } from "node:crypto";
import { TranscriptionCreatedSchema, TranscriptRenamedSchema } from "@transcribe/proto/events/v1/events";
import { Partitioners } from "kafkajs";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consume, newEvent, toEnvelope, type EventEnvelope, type EventHandler, type SubscribeOptions, type Topic } from "../../src/index.js";
import { createTestBus, type BusEnv, type TestBus } from "./bus-kinds.js";
import { startChildConsumer, type ChildConsumer } from "./child-consumer.js";
import { count, createTestDatabases, waitFor, type TestDatabases } from "./helpers.js";

export interface ContractTarget {
  name: string;
  /** Why the suite cannot run here; the suite is skipped (with this reason printed). */
  skip?: string | undefined;
  /** Prepares the backing store; the env builds buses in this process and in children. */
  setup(dbs: TestDatabases): Promise<{ env: BusEnv; cleanup(): Promise<void> }>;
  /** Longest expected delay before a killed consumer's deliveries come back. */
  redeliveryTimeoutMs: number;
  /**
   * Failed deliveries are retried in place, holding back the key's later events (Kafka).
   * pg-boss retries a failed job later while the queue moves on, so per-key order holds
   * only for deliveries that succeed.
   */
  orderedRetries: boolean;
  /** Partitions per topic, so the kill test can put its two events on different ones. */
  partitions?: number;
}

const renamed = (transcriptId: string, newName: string) =>
  toEnvelope(newEvent(TranscriptRenamedSchema, { transcriptId, userId: "u", oldName: "", newName }));
const created = (jobId: string) => toEnvelope(newEvent(TranscriptionCreatedSchema, { jobId, userId: "u" }));

/** Short random names: consumer groups and keys of one test never meet another test's. */
const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** Keys that the Kafka default partitioner (murmur2, as Java's) puts on different partitions. */
function keysOnDistinctPartitions(n: number, partitions: number, prefix: string): string[] {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 1,
    partitionErrorCode: 0,
    replicas: [1],
    isr: [1],
  }));
  const byPartition = new Map<number, string>();
  for (let i = 0; byPartition.size < Math.min(n, partitions) && i < 10_000; i++) {
    const key = `${prefix}-${i}`;
    const partition = partitioner({ topic: "t", partitionMetadata, message: { key, value: null } });
    if (!byPartition.has(partition)) byPartition.set(partition, key);
  }
  return [...byPartition.values()].slice(0, n);
}

export function busContract(target: ContractTarget): void {
  if (target.skip) process.stdout.write(`\n[bus contract] skipping ${target.name}: ${target.skip}\n`);

  describe.skipIf(Boolean(target.skip))(`EventBus contract: ${target.name}`, () => {
    let dbs: TestDatabases;
    let env: BusEnv;
    let cleanupTarget: (() => Promise<void>) | undefined;
    const buses: TestBus[] = [];
    const children: ChildConsumer[] = [];

    beforeAll(async () => {
      dbs = await createTestDatabases(`contract_${target.name.replace(/\W/g, "")}`);
      const prepared = await target.setup(dbs);
      env = prepared.env;
      cleanupTarget = prepared.cleanup;
    });
    afterEach(async () => {
      for (const c of children.splice(0)) if (c.alive()) c.child.kill("SIGKILL");
      await Promise.all(buses.splice(0).map((b) => b.stop()));
    });
    afterAll(async () => {
      await cleanupTarget?.();
      await dbs?.cleanup();
    });

    async function startBus(): Promise<TestBus> {
      const bus = createTestBus(env);
      buses.push(bus);
      await bus.start();
      return bus;
    }

    /** Subscribes a handler that sees only this test's events (the topics are shared). */
    async function collect(
      bus: TestBus,
      consumer: string,
      topic: Topic,
      mine: (e: EventEnvelope) => boolean,
      handler: EventHandler = async () => {},
      options?: SubscribeOptions,
    ): Promise<EventEnvelope[]> {
      const seen: EventEnvelope[] = [];
      await bus.subscribe(
        consumer,
        [topic],
        async (envelope) => {
          if (!mine(envelope)) return;
          await handler(envelope);
          seen.push(envelope);
        },
        options,
      );
      return seen;
    }

    it("delivers an envelope exactly as published (id, type, topic, key, time, payload bytes)", async () => {
      const bus = await startBus();
      const sent = renamed(unique("t"), "ünïcödé name ✓");
      const received = await collect(bus, unique("roundtrip"), "transcription.transcripts", (e) => e.id === sent.id);
      await bus.publish([sent]);
      await waitFor(async () => received.length >= 1, 30_000, "the delivery");
      const [got] = received;
      expect(got!.id).toBe(sent.id);
      expect(got!.type).toBe(sent.type);
      expect(got!.topic).toBe(sent.topic);
      expect(got!.key).toBe(sent.key);
      expect(got!.occurredAt.toISOString()).toBe(sent.occurredAt.toISOString());
      expect(Buffer.from(got!.payload).equals(Buffer.from(sent.payload))).toBe(true);
      expect(await bus.ping()).toBeGreaterThanOrEqual(0);
    });

    it("keeps each key's events in publish order", async () => {
      const bus = await startBus();
      const keys = [unique("a"), unique("b"), unique("c"), unique("d")];
      const perKey = 25;
      const received = await collect(bus, unique("order"), "transcription.transcripts", (e) => keys.includes(e.key));
      // Several publishes, each mixing keys and holding several events of one key.
      const all: EventEnvelope[] = [];
      for (let i = 0; i < perKey; i++) for (const key of keys) all.push(renamed(key, String(i)));
      for (let i = 0; i < all.length; i += 17) await bus.publish(all.slice(i, i + 17));
      await waitFor(async () => received.length >= all.length, 60_000, `${all.length} deliveries`);
      for (const key of keys) {
        const sentIds = all.filter((e) => e.key === key).map((e) => e.id);
        const gotIds = received.filter((e) => e.key === key).map((e) => e.id);
        expect(gotIds).toEqual(sentIds);
      }
    });

    // Only a bus that promises ordered retries has this case; for the others it is not a skipped test but none.
    if (target.orderedRetries) {
      it("holds a key's later events back while an earlier one is retried", async () => {
        const bus = await startBus();
        const key = unique("k");
        let failures = 0;
        const first = renamed(key, "first");
        const received = await collect(
          bus,
          unique("retryorder"),
          "transcription.transcripts",
          (e) => e.key === key,
          async (e) => {
            if (e.id === first.id && failures < 2) {
              failures += 1;
              throw new Error("transient");
            }
          },
          { retryLimit: 3, retryDelay: 0.2, retryBackoff: false },
        );
        await bus.publish([first, renamed(key, "second"), renamed(key, "third")]);
        await waitFor(async () => received.length >= 3, 30_000, "three deliveries");
        expect(failures).toBe(2);
        expect(received.map((e) => e.id)[0]).toBe(first.id);
      });
    }

    it("delivers again after the consumer process is killed mid-handler; each effect applies once (at least once, exactly-once effects)", async () => {
      const publisher = await startBus();
      const consumer = unique("killed");
      const [insideKey, afterKey] = keysOnDistinctPartitions(2, target.partitions ?? 3, unique("kill"));
      const childEnv = {
        ...env,
        DATABASE_URL: dbs.serviceUrl,
        CONSUMER: consumer,
        TOPIC: "transcription.jobs",
      };
      const first = startChildConsumer({ ...childEnv, HANG_INSIDE: insideKey, HANG_AFTER: afterKey });
      children.push(first);
      await first.line(/^READY$/);
      const inside = created(insideKey!);
      const afterCommit = created(afterKey!);
      await publisher.publish([inside, afterCommit]);
      await first.line(/^BLOCKED inside /, 30_000);
      await first.line(/^BLOCKED after-commit /, 30_000);
      const effects = (id: string) => count(dbs.service, sql`select count(*) as n from effects where consumer = ${consumer} and event_id = ${id}`);
      const deliveries = (id: string) => count(dbs.service, sql`select count(*) as n from deliveries where consumer = ${consumer} and event_id = ${id}`);
      expect(await effects(inside.id)).toBe(0);
      expect(await effects(afterCommit.id)).toBe(1);

      first.child.kill("SIGKILL");
      expect(await first.exited).toBe("SIGKILL");

      const second = startChildConsumer(childEnv);
      children.push(second);
      await second.line(/^READY$/);
      await waitFor(
        async () => (await deliveries(inside.id)) >= 2 && (await deliveries(afterCommit.id)) >= 2,
        target.redeliveryTimeoutMs,
        "redelivery to the second process",
      );
      await waitFor(async () => (await effects(inside.id)) >= 1, 10_000, "the effect of the redelivered event");
      await new Promise((r) => setTimeout(r, 500));
      for (const event of [inside, afterCommit]) {
        expect(await effects(event.id)).toBe(1);
        expect(await count(dbs.service, sql`select count(*) as n from platform_processed_events where consumer = ${consumer} and event_id = ${event.id}`)).toBe(1);
      }
      second.child.kill("SIGTERM");
      expect(await second.exited).toBe(0);
    });

    it("applies an effect once when the same event is published again and handled concurrently", async () => {
      const bus = await startBus();
      const consumer = unique("dupes");
      const events = Array.from({ length: 10 }, () => created(unique("dup")));
      const ids = new Set(events.map((e) => e.id));
      let deliveries = 0;
      const handler = consume(dbs.service.db, consumer, async (trx, event) => {
        await sql`insert into effects (consumer, event_id) values (${consumer}, ${event.id})`.execute(trx);
      });
      await bus.subscribe(consumer, ["transcription.jobs"], async (e) => {
        if (!ids.has(e.id)) return;
        deliveries += 1;
        await handler(e);
      });
      // A relay that crashed after publishing but before marking the rows publishes them again.
      await bus.publish(events);
      await bus.publish(events);
      await bus.publish(events.slice(0, 5));
      await waitFor(
        async () => (await count(dbs.service, sql`select count(distinct event_id) as n from effects where consumer = ${consumer}`)) === events.length,
        30_000,
        "every effect",
      );
      await new Promise((r) => setTimeout(r, 1_000));
      // Handled directly too, in parallel: the processed-id row serialises them.
      await Promise.all(events.slice(0, 3).flatMap((e) => [handler(e), handler(e)]));
      expect(await count(dbs.service, sql`select count(*) as n from effects where consumer = ${consumer}`)).toBe(events.length);
      expect(deliveries).toBeGreaterThanOrEqual(events.length);
    });

    it("dead-letters an event after retryLimit retries, keeps the error, and keeps the others flowing; replay reaches only that consumer", async () => {
      const bus = await startBus();
      const failing = unique("dlq");
      const bystander = unique("bystander");
      const key = unique("poison");
      const poison = renamed(key, "poison");
      const healthy = renamed(unique("healthy"), "fine");
      const mine = (e: EventEnvelope) => e.id === poison.id || e.id === healthy.id;
      let attempts = 0;
      let broken = true;
      const handled = await collect(
        bus,
        failing,
        "transcription.transcripts",
        mine,
        async (e) => {
          if (e.id !== poison.id) return;
          attempts += 1;
          if (broken) throw new Error(`cannot handle ${e.key} (attempt ${attempts})`);
        },
        { retryLimit: 2, retryDelay: 0, retryBackoff: false },
      );
      const bystanderSeen = await collect(bus, bystander, "transcription.transcripts", mine);
      await bus.publish([poison, healthy]);

      await waitFor(async () => handled.some((e) => e.id === healthy.id), 30_000, "the healthy event");
      await waitFor(async () => bystanderSeen.length >= 2, 30_000, "the bystander's deliveries");
      const letters = await waitFor(async () => {
        const found = await bus.listDeadLetters({ consumer: failing });
        return found.length > 0 ? found : undefined;
      }, 30_000, "the dead letter");
      expect(attempts).toBe(3);
      expect(letters).toHaveLength(1);
      const [letter] = letters;
      expect(letter!.consumer).toBe(failing);
      expect(letter!.envelope.id).toBe(poison.id);
      expect(letter!.envelope.key).toBe(key);
      expect(letter!.envelope.occurredAt.toISOString()).toBe(poison.occurredAt.toISOString());
      expect(Buffer.from(letter!.envelope.payload).equals(Buffer.from(poison.payload))).toBe(true);
      expect(letter!.error).toContain(`cannot handle ${key}`);
      expect(letter!.attempts).toBe(3);
      expect(await bus.listDeadLetters({ consumer: bystander })).toEqual([]);
      expect((await bus.listDeadLetters({ eventIds: [poison.id] })).map((l) => l.consumer)).toEqual([failing]);

      // The fix is deployed; replay.
      broken = false;
      expect(await bus.replayDeadLetters({ consumer: failing })).toBe(1);
      await waitFor(async () => handled.some((e) => e.id === poison.id), 30_000, "the replayed event");
      expect(attempts).toBe(4);
      expect(await bus.listDeadLetters({ consumer: failing })).toEqual([]);
      expect(await bus.replayDeadLetters({ consumer: failing })).toBe(0);
      // Let any wrong delivery to the bystander show up.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(bystanderSeen.filter((e) => e.id === poison.id)).toHaveLength(1);
      expect(handled.filter((e) => e.id === poison.id)).toHaveLength(1);
    });

    it("refuses to publish once stopped", async () => {
      const bus = await startBus();
      await bus.stop();
      await expect(bus.publish([created(unique("stopped"))])).rejects.toThrow(/not started/);
    });
  });
}
