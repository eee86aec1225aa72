import { TranscriptionCompletedSchema, TranscriptionOutcome } from "@transcribe/proto/events/v1/events";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consume, isEvent, newEvent, PgBossEventBus, toEnvelope, type EventEnvelope } from "../../src/index.js";
import { count, createTestDatabases, fastBus, waitFor, type TestDatabases } from "./helpers.js";

describe("pg-boss bus deliveries and idempotent consumers (real PostgreSQL)", () => {
  let dbs: TestDatabases;
  let bus: PgBossEventBus;

  beforeAll(async () => {
    dbs = await createTestDatabases("bus");
  });
  afterEach(async () => {
    await bus?.stop();
  });
  afterAll(async () => {
    await dbs.cleanup();
  });

  async function startBus(): Promise<PgBossEventBus> {
    bus = new PgBossEventBus({ url: dbs.eventsUrl, ...fastBus });
    await bus.start();
    return bus;
  }

  const completed = (jobId: string) =>
    toEnvelope(newEvent(TranscriptionCompletedSchema, { jobId, userId: "u", status: TranscriptionOutcome.SUCCESS }));

  it("retries a failing handler with exponential backoff until it succeeds", async () => {
    await startBus();
    const attempts: number[] = [];
    await bus.subscribe(
      "billing",
      ["transcription.jobs"],
      async () => {
        attempts.push(Date.now());
        if (attempts.length <= 2) throw new Error(`transient failure ${attempts.length}`);
      },
      { retryLimit: 3, retryDelay: 1, retryBackoff: true },
    );
    await bus.publish([completed("job-retry")]);
    await waitFor(async () => attempts.length >= 3, 12_000, "three attempts");
    const [first, second, third] = attempts as [number, number, number];
    // pg-boss backoff: retryDelay * 2^n / 2 plus up to as much jitter again.
    expect(second - first).toBeGreaterThanOrEqual(900);
    expect(third - second).toBeGreaterThanOrEqual(1_900);
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).toHaveLength(3);
  });

  it("gives up after retryLimit retries", async () => {
    await startBus();
    let attempts = 0;
    await bus.subscribe(
      "media",
      ["transcription.transcripts"],
      async () => {
        attempts += 1;
        throw new Error("permanent failure");
      },
      { retryLimit: 2, retryDelay: 0, retryBackoff: false },
    );
    const { TranscriptRenamedSchema } = await import("@transcribe/proto/events/v1/events");
    await bus.publish([toEnvelope(newEvent(TranscriptRenamedSchema, { transcriptId: "t1", userId: "u", newName: "x" }))]);
    await waitFor(async () => attempts >= 3, 5_000, "three attempts");
    await new Promise((r) => setTimeout(r, 600));
    expect(attempts).toBe(3);
  });

  it("applies a duplicate delivery's effect once, even when the duplicates run concurrently", async () => {
    const handler = consume(dbs.service.db, "billing", async (trx, event) => {
      if (!isEvent(event, TranscriptionCompletedSchema)) return;
      await sql`insert into effects (consumer, event_id) values ('billing', ${event.id})`.execute(trx);
      // Keeps the first delivery's transaction open while the concurrent one arrives.
      await new Promise((r) => setTimeout(r, 100));
    });
    const once = completed("job-dup-1");
    await handler(once);
    await handler(once);
    const racing = completed("job-dup-2");
    await Promise.all([handler(racing), handler(racing), handler(racing)]);

    for (const envelope of [once, racing]) {
      expect(await count(dbs.service, sql`select count(*) as n from effects where event_id = ${envelope.id}`)).toBe(1);
    }
    // Another consumer of the same event is tracked separately.
    const other = consume(dbs.service.db, "export", async (trx, event) => {
      await sql`insert into effects (consumer, event_id) values ('export', ${event.id})`.execute(trx);
    });
    await other(once);
    expect(await count(dbs.service, sql`select count(*) as n from effects where event_id = ${once.id}`)).toBe(2);
  });

  it("rolls back a failed handler's effects so the retry applies them exactly once", async () => {
    await startBus();
    const { TranscriptDeletedSchema } = await import("@transcribe/proto/events/v1/events");
    const envelope: EventEnvelope = toEnvelope(newEvent(TranscriptDeletedSchema, { transcriptId: "t-rb", userId: "u" }));
    let attempts = 0;
    const handler = consume(dbs.service.db, "export", async (trx, event) => {
      // Earlier tests left other events for "export" (it is in the topology) in its queue.
      if (event.id !== envelope.id) return;
      attempts += 1;
      await sql`insert into effects (consumer, event_id) values ('export', ${event.id})`.execute(trx);
      if (attempts === 1) throw new Error("failed after writing");
    });
    await bus.subscribe("export", ["transcription.transcripts"], handler, { retryDelay: 0, retryBackoff: false });
    await bus.publish([envelope]);
    // Publishing the same event again (a relay that crashed before marking it) is harmless.
    await bus.publish([envelope]);
    await waitFor(async () => (await count(dbs.service, sql`select count(*) as n from effects where event_id = ${envelope.id}`)) === 1, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(attempts).toBe(2);
    expect(await count(dbs.service, sql`select count(*) as n from effects where event_id = ${envelope.id}`)).toBe(1);
    expect(await count(dbs.service, sql`select count(*) as n from platform_processed_events where event_id = ${envelope.id}`)).toBe(1);
  });

  it("refuses to publish when stopped and reports its latency when running", async () => {
    await startBus();
    expect(await bus.ping()).toBeGreaterThanOrEqual(0);
    await bus.stop();
    await expect(bus.publish([completed("job-stopped")])).rejects.toThrow(/not started/);
  });
});
