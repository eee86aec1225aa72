import { sql, type Kysely } from "kysely";
import type { Database } from "../db/database.js";
import type { Logger } from "../logger.js";
import { publishTraced } from "../observability/events.js";
import { eventsPublished, outboxLag, outboxPublishFailures } from "../observability/metrics.js";
import type { EventBus } from "./bus.js";
import type { EventEnvelope } from "./envelope.js";
import { listenForNotifications, type NotificationListener } from "./listener.js";
import { outboxChannel, pruneProcessedEvents, type PlatformEventTables } from "./outbox.js";
import { backoffMs, sleep, Wakeup } from "./wakeup.js";

export interface OutboxRelayOptions {
  /** The producing service's own database (the one holding platform_outbox). */
  database: Database<any>;
  bus: EventBus;
  logger?: Logger;
  /** Rows published per transaction. */
  batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (lost connection, missed notification). */
  pollIntervalMs?: number;
  /** Published rows are kept this long (for inspection and replay), then deleted. */
  retentionMs?: number;
  /** Processed-event ids are kept this long; must exceed any redelivery delay. */
  processedRetentionMs?: number;
  /** How often the retention clean-up runs. */
  cleanupIntervalMs?: number;
  /** Backoff after a failed publish: first delay and cap. */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** A publish that takes longer counts as failed (the rows are published again later). */
  publishTimeoutMs?: number;
  /** How long stop() keeps publishing what is pending before it gives up. */
  drainTimeoutMs?: number;
}

export interface OutboxRelay {
  start(): Promise<void>;
  /** Publishes every pending row now; resolves with the number published. */
  flush(): Promise<number>;
  /** Finishes the running batch, publishes what is pending (bounded), stops listening. */
  stop(): Promise<void>;
}

const day = 24 * 60 * 60 * 1000;

/**
 * Moves committed outbox rows to the event bus. Safe in several replicas: each batch
 * runs in one transaction that first takes a transaction-scoped advisory lock, so one
 * replica publishes at a time and rows leave in `seq` order (per-key order is what Kafka
 * needs; concurrent batches from several replicas would interleave); the row locks
 * (`for update skip locked`) keep a batch from being published twice even without it.
 * A crash between publish and commit republishes the batch: delivery is at least once,
 * and consumers deduplicate. The LISTEN holds one connection of the service's pool.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const db = options.database.db as Kysely<PlatformEventTables>;
  const log = options.logger;
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const retentionMs = options.retentionMs ?? 7 * day;
  const processedRetentionMs = options.processedRetentionMs ?? 30 * day;
  const cleanupIntervalMs = options.cleanupIntervalMs ?? 60_000;
  const retryMinMs = options.retryMinMs ?? 500;
  const retryMaxMs = options.retryMaxMs ?? 30_000;
  const publishTimeoutMs = options.publishTimeoutMs ?? 30_000;
  const drainTimeoutMs = options.drainTimeoutMs ?? 5_000;

  const wakeup = new Wakeup();
  let stopping: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let listener: NotificationListener | undefined;
  let lastCleanup = 0;
  // Serialises batches of this process (the loop, flush() and the final drain).
  let running: Promise<unknown> = Promise.resolve();

  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = running.then(work, work);
    running = next.catch(() => {});
    return next;
  };

  const relayBatch = (): Promise<number> =>
    exclusive(async () => {
      let claimed: string[] = [];
      try {
        return await db.transaction().execute(async (trx) => {
          const lock = await sql<{ locked: boolean }>`
            select pg_try_advisory_xact_lock(hashtext('platform_outbox_relay')) as locked`.execute(trx);
          if (!lock.rows[0]?.locked) return 0;
          const rows = await trx
            .selectFrom("platform_outbox")
            .select(["id", "topic", "key", "type", "payload", "occurred_at", "created_at", "traceparent"])
            .where("published_at", "is", null)
            .orderBy("seq")
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .execute();
          if (rows.length === 0) return 0;
          claimed = rows.map((r) => r.id);
          const envelopes: EventEnvelope[] = rows.map((r) => ({
            id: r.id,
            type: r.type,
            topic: r.topic,
            key: r.key,
            occurredAt: r.occurred_at,
            payload: r.payload,
            ...(r.traceparent ? { traceparent: r.traceparent } : {}),
          }));
          await withTimeout(
            publishTraced(envelopes, (traced) => options.bus.publish(traced)),
            publishTimeoutMs,
            "publish timed out",
          );
          await trx
            .updateTable("platform_outbox")
            .set({ published_at: sql`now()`, attempts: sql`attempts + 1` })
            .where("id", "in", claimed)
            .execute();
          const now = Date.now();
          for (const row of rows) {
            eventsPublished.inc({ topic: row.topic });
            outboxLag.observe(Math.max(0, now - row.created_at.getTime()) / 1000);
          }
          return rows.length;
        });
      } catch (error) {
        if (claimed.length > 0) {
          outboxPublishFailures.inc();
          // Outside the rolled-back transaction, so the count survives for operators.
          await db
            .updateTable("platform_outbox")
            .set({ attempts: sql`attempts + 1` })
            .where("id", "in", claimed)
            .execute()
            .catch(() => {});
        }
        throw error;
      }
    });

  const cleanup = async () => {
    lastCleanup = Date.now();
    try {
      await db
        .deleteFrom("platform_outbox")
        .where("published_at", "<", sql<Date>`now() - make_interval(secs => ${retentionMs / 1000})`)
        .execute();
      await pruneProcessedEvents(db, processedRetentionMs);
    } catch (error) {
      log?.warn({ err: error }, "outbox relay: clean-up failed");
    }
  };

  const run = async (signal: AbortSignal) => {
    let failures = 0;
    while (!signal.aborted) {
      let published = 0;
      try {
        published = await relayBatch();
        if (failures > 0) log?.info({ failures }, "outbox relay: publishing again");
        failures = 0;
      } catch (error) {
        failures += 1;
        const delay = backoffMs(failures, retryMinMs, retryMaxMs);
        log?.warn({ err: error, failures, retryInMs: Math.round(delay) }, "outbox relay: publish failed; rows stay pending");
        // Not wakeup.wait: a stream of NOTIFYs must not defeat the backoff.
        await sleep(delay, signal);
        continue;
      }
      if (Date.now() - lastCleanup >= cleanupIntervalMs) await cleanup();
      if (published < batchSize) await wakeup.wait(pollIntervalMs);
    }
  };

  const flush = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const published = await relayBatch();
      total += published;
      if (published < batchSize) return total;
    }
  };

  return {
    async start() {
      if (loop) return;
      stopping = new AbortController();
      const pool = options.database.pool;
      listener = listenForNotifications({
        channel: outboxChannel,
        logger: log,
        connect: async () => {
          const client = await pool.connect();
          // Destroyed rather than returned: a pooled connection must not keep LISTENing.
          return { client, close: () => client.release(true) };
        },
        onNotification: () => wakeup.wake(),
        onConnect: () => wakeup.wake(),
      });
      loop = run(stopping.signal);
    },
    flush,
    async stop() {
      if (!loop || !stopping) return;
      stopping.abort();
      wakeup.wake();
      await loop;
      loop = undefined;
      await listener?.stop();
      listener = undefined;
      // Events committed just before shutdown leave now rather than at the next start.
      const deadline = Date.now() + drainTimeoutMs;
      try {
        while (Date.now() < deadline) {
          if ((await relayBatch()) < batchSize) break;
        }
      } catch (error) {
        log?.warn({ err: error }, "outbox relay: could not drain at stop; rows stay pending");
      }
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
