import { FileUploadedSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createOutboxRelay,
  decodeEvent,
  enqueueEvents,
  newEvent,
  PgBossEventBus,
  type EventBus,
  type EventEnvelope,
  type OutboxRelay,
} from "../../src/index.js";
import { count, createTestDatabases, fastBus, waitFor, type TestDatabases } from "./helpers.js";

describe("outbox, relay and pg-boss bus (real PostgreSQL)", () => {
  let dbs: TestDatabases;
  const stoppers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    dbs = await createTestDatabases("relay");
  });
  afterEach(async () => {
    for (const stop of stoppers.splice(0).reverse()) await stop();
  });
  afterAll(async () => {
    await dbs.cleanup();
  });

  async function startBus(): Promise<PgBossEventBus> {
    const bus = new PgBossEventBus({ url: dbs.eventsUrl, ...fastBus });
    await bus.start();
    stoppers.push(() => bus.stop());
    return bus;
  }

  function startRelay(bus: EventBus, options: Partial<Parameters<typeof createOutboxRelay>[0]> = {}): OutboxRelay {
    const relay = createOutboxRelay({ database: dbs.service, bus, pollIntervalMs: 200, ...options });
    stoppers.push(() => relay.stop());
    void relay.start();
    return relay;
  }

  function collector() {
    const received: EventEnvelope[] = [];
    return { received, handler: async (envelope: EventEnvelope) => void received.push(envelope) };
  }

  it("commits the event with the state change, publishes nothing for a rollback, and fans out to every consumer", async () => {
    const publisher = await startBus();
    // Both wake-ups are NOTIFY-driven here: the polls are far longer than the test.
    const consumers = new PgBossEventBus({ url: dbs.eventsUrl, ...fastBus, pollingIntervalMs: 60_000 });
    await consumers.start();
    stoppers.push(() => consumers.stop());
    const billing = collector();
    const media = collector();
    await consumers.subscribe("billing", ["auth.users"], billing.handler);
    await consumers.subscribe("media", ["auth.users"], media.handler);
    startRelay(publisher, { pollIntervalMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300));

    const kept = newEvent(UserDeletedSchema, { userId: "user-kept" });
    await dbs.service.db.transaction().execute(async (trx) => {
      await sql`insert into things (id) values ('kept')`.execute(trx);
      await enqueueEvents(trx, [kept]);
    });
    const rolledBack = newEvent(UserDeletedSchema, { userId: "user-rolled-back" });
    await expect(
      dbs.service.db.transaction().execute(async (trx) => {
        await sql`insert into things (id) values ('rolled-back')`.execute(trx);
        await enqueueEvents(trx, [rolledBack]);
        throw new Error("domain rule refused");
      }),
    ).rejects.toThrow("domain rule refused");

    expect(await count(dbs.service, sql`select count(*) as n from things`)).toBe(1);
    expect(await count(dbs.service, sql`select count(*) as n from platform_outbox`)).toBe(1);

    await waitFor(async () => billing.received.length >= 1 && media.received.length >= 1, 5_000, "both consumers");
    for (const { received } of [billing, media]) {
      expect(received.map((e) => e.id)).toEqual([kept.id]);
      expect(decodeEvent(received[0]!)).toEqual(kept);
    }
    await waitFor(async () => (await count(dbs.service, sql`select count(*) as n from platform_outbox where published_at is not null`)) === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(billing.received.map((e) => e.id)).toEqual([kept.id]);
    expect(media.received.map((e) => e.id)).toEqual([kept.id]);
  });

  it("delivers an event published before its consumer ever started", async () => {
    const publisher = await startBus();
    const relay = startRelay(publisher);
    const event = newEvent(FileUploadedSchema, { fileId: "file-early", userId: "u" });
    await dbs.service.db.transaction().execute((trx) => enqueueEvents(trx, [event]));
    await waitFor(
      async () => (await count(dbs.service, sql`select count(*) as n from platform_outbox where id = ${event.id} and published_at is not null`)) === 1,
      5_000,
      "the relay to publish",
    );
    await relay.stop();

    // "transcription" has never subscribed in this database: its queue exists only
    // because every bus start creates the whole topology.
    const late = new PgBossEventBus({ url: dbs.eventsUrl, ...fastBus });
    await late.start();
    stoppers.push(() => late.stop());
    const transcription = collector();
    await late.subscribe("transcription", ["media.files"], transcription.handler);
    // The control: a consumer outside the topology only sees what is published after
    // it subscribed, as pg-boss fans out to existing queues only.
    const outsider = collector();
    await late.subscribe("outsider", ["media.files"], outsider.handler);
    await waitFor(async () => transcription.received.length === 1, 5_000, "the late consumer");
    expect(decodeEvent(transcription.received[0]!)).toEqual(event);
    await new Promise((r) => setTimeout(r, 300));
    expect(outsider.received).toEqual([]);
  });

  it("keeps rows pending while publishing fails and publishes them once it recovers", async () => {
    const bus = await startBus();
    let failuresLeft = 2;
    const flaky: EventBus = {
      start: () => bus.start(),
      stop: () => bus.stop(),
      ping: () => bus.ping(),
      subscribe: (...args) => bus.subscribe(...args),
      async publish(envelopes) {
        if (failuresLeft-- > 0) throw new Error("bus unavailable");
        await bus.publish(envelopes);
      },
    };
    const event = newEvent(FileUploadedSchema, { fileId: "file-flaky", userId: "u" });
    await dbs.service.db.transaction().execute((trx) => enqueueEvents(trx, [event]));
    startRelay(flaky, { retryMinMs: 100, retryMaxMs: 200 });
    const row = await waitFor(async () => {
      const { rows } = await sql<{ published_at: Date | null; attempts: number }>`
        select published_at, attempts from platform_outbox where id = ${event.id}`.execute(dbs.service.db);
      return rows[0]?.published_at ? rows[0] : undefined;
    }, 5_000, "publication after failures");
    expect(failuresLeft).toBeLessThan(0);
    expect(row.attempts).toBe(3);
  });

  it("runs safely in several replicas: every event is published exactly once", async () => {
    const bus = await startBus();
    const consumer = collector();
    await bus.subscribe("export", ["transcription.transcripts"], consumer.handler, { concurrency: 5 });
    const { TranscriptDeletedSchema } = await import("@transcribe/proto/events/v1/events");
    const events = Array.from({ length: 60 }, (_, i) => newEvent(TranscriptDeletedSchema, { transcriptId: `t-${i}`, userId: "u" }));
    startRelay(bus, { batchSize: 7 });
    startRelay(bus, { batchSize: 7 });
    startRelay(bus, { batchSize: 7 });
    for (let i = 0; i < events.length; i += 6) {
      await dbs.service.db.transaction().execute((trx) => enqueueEvents(trx, events.slice(i, i + 6)));
    }
    const ids = new Set(events.map((e) => e.id));
    const rows = async () =>
      (
        await sql<{ id: string; attempts: number; published: boolean }>`
          select id, attempts, published_at is not null as published
          from platform_outbox where id = any(${[...ids]}::uuid[])`.execute(dbs.service.db)
      ).rows;
    // A batch reaches the bus before its transaction marks it published, so wait for both.
    await waitFor(
      async () => consumer.received.length >= events.length && (await rows()).every((r) => r.published),
      10_000,
      "all events published and marked",
    );
    expect((await rows()).filter((r) => r.attempts !== 1)).toEqual([]);
    expect(new Set(consumer.received.map((e) => e.id))).toEqual(ids);
  });

  it("deletes published rows past their retention and drains pending rows on stop", async () => {
    const bus = await startBus();
    const old = newEvent(FileUploadedSchema, { fileId: "file-old", userId: "u" });
    await dbs.service.db.transaction().execute((trx) => enqueueEvents(trx, [old]));
    await sql`update platform_outbox set published_at = now() - interval '8 days' where id = ${old.id}`.execute(dbs.service.db);

    const relay = startRelay(bus, { pollIntervalMs: 60_000 });
    await waitFor(
      async () => (await count(dbs.service, sql`select count(*) as n from platform_outbox where id = ${old.id}`)) === 0,
      5_000,
      "retention clean-up",
    );
    // The relay is idle for a minute; stop() must still publish what is pending.
    const pending = newEvent(FileUploadedSchema, { fileId: "file-at-stop", userId: "u" });
    await sql`insert into platform_outbox (id, topic, key, type, payload, occurred_at)
      values (${pending.id}, 'media.files', 'file-at-stop', ${pending.$typeName}, ${new Uint8Array()}, now())`.execute(dbs.service.db);
    await relay.stop();
    expect(await count(dbs.service, sql`select count(*) as n from platform_outbox where id = ${pending.id} and published_at is not null`)).toBe(1);
  });
});
