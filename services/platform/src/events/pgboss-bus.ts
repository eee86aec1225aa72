import PgBoss from "pg-boss";
import pg from "pg";
import { AppError } from "../errors.js";
import type { Logger } from "../logger.js";
import { observeDeliveries } from "../observability/events.js";
import type { DeadLetter, DeadLetterFilter, DeadLetters, EventBus, EventHandler, SubscribeOptions } from "./bus.js";
import type { Topic } from "./catalog.js";
import { envelopeFromJson, envelopeToJson, isUuid, type EventEnvelope, type EventEnvelopeJson } from "./envelope.js";
import { listenForNotifications, type NotificationListener } from "./listener.js";
import { eventTopology, type Topology } from "./topology.js";
import { Wakeup } from "./wakeup.js";

/** Arbitrary but fixed: the advisory lock id that serializes queue creation. */
const QUEUE_LOCK_KEY = 7_304_211;

export interface PgBossEventBusOptions {
  /** The dedicated events database (not a service's own). */
  url: string;
  logger?: Logger;
  /** Consumers and their topics whose queues exist from the first start. */
  topology?: Topology;
  /** PostgreSQL schema pg-boss keeps its tables in. */
  schema?: string;
  /** Pool size of this process's connection to the events database. */
  max?: number;
  applicationName?: string;

  /** Defaults for every queue; subscribe() options override them per consumer. */
  retryLimit?: number;
  /** Seconds. */
  retryDelay?: number;
  retryBackoff?: boolean;
  /**
   * Seconds a delivery may stay active without an acknowledgement. pg-boss 10 has no
   * heartbeat: a worker killed mid-handler leaves its job "active", and only once
   * started_on + expireIn has passed does maintenance fail it into "retry". So this is
   * the floor on how soon a crashed delivery comes back, and it must also exceed the
   * longest handler, or a slow but healthy handler gets a concurrent second delivery
   * (harmless with consume(), wasted work otherwise). Short in tests, minutes in use.
   */
  expireInSeconds?: number;
  /**
   * How often maintenance (expiring stuck deliveries, archiving) runs, in seconds. Any
   * process with a started bus runs it, at most once per interval across all of them.
   * A crashed delivery is redelivered after expireInSeconds plus up to this interval
   * plus the retry delay; shorter means faster recovery at the cost of a few cheap
   * queries per interval.
   */
  maintenanceIntervalSeconds?: number;
  /**
   * Milliseconds between polls of an idle queue. A publish wakes the consumers at once
   * through NOTIFY, so this bounds latency only when a notification was missed.
   */
  pollingIntervalMs?: number;
  /** How long stop() waits for running handlers before closing anyway. */
  stopTimeoutMs?: number;
}

const defaults = {
  schema: "pgboss",
  max: 5,
  retryLimit: 10,
  retryDelay: 1,
  retryBackoff: true,
  expireInSeconds: 5 * 60,
  maintenanceIntervalSeconds: 30,
  pollingIntervalMs: 2_000,
  stopTimeoutMs: 10_000,
  concurrency: 1,
} as const;

/** Publishes wake consumers in every process through this channel; the payload is the topic. */
const busChannel = "platform_bus";

const consumerNamePattern = /^[a-z][a-z0-9_-]*$/;

interface Subscription {
  consumer: string;
  topic: Topic;
  queue: string;
  handler: EventHandler;
  concurrency: number;
  expireInSeconds: number;
  wakeup: Wakeup;
  loop?: Promise<void>;
  /** Per subscription rather than per bus: a handler stuck past stop() must not revive its loop after a restart. */
  stopped: boolean;
}

type QueueSettings = Required<Pick<SubscribeOptions, "retryLimit" | "retryDelay" | "retryBackoff" | "expireInSeconds">>;

/** The queue a consumer reads one topic from. */
export function queueName(consumer: string, topic: Topic): string {
  return `${consumer}.${topic}`;
}

/** Where pg-boss moves a job of that queue whose retries are exhausted (its deadLetter option). */
export function deadLetterQueueName(consumer: string, topic: Topic): string {
  return `${queueName(consumer, topic)}.dlq`;
}

/**
 * The embedded mode's event bus: pg-boss 10 on a dedicated PostgreSQL database.
 *
 * Each (consumer, topic) pair is a pg-boss queue, subscribed to the topic, so a publish
 * is one INSERT of a job per subscribed queue: durable once it returns, and kept until
 * that consumer acknowledges it. Jobs are fetched and acknowledged one by one here
 * rather than through pg-boss's work(): its worker sleeps a full polling interval even
 * after a busy fetch, fails a whole batch when one job fails, and does not await its
 * acknowledgements (a failed one becomes an unhandled rejection).
 */
export class PgBossEventBus implements EventBus, DeadLetters {
  readonly #options: PgBossEventBusOptions;
  readonly #schema: string;
  readonly #queueDefaults: QueueSettings;
  readonly #pollingIntervalMs: number;
  readonly #log: Logger | undefined;
  #boss: PgBoss | undefined;
  #starting: Promise<void> | undefined;
  #stopping = false;
  #stopCall: Promise<void> | undefined;
  #listener: NotificationListener | undefined;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #publishing = new Set<Promise<void>>();

  constructor(options: PgBossEventBusOptions) {
    this.#options = options;
    this.#schema = options.schema ?? defaults.schema;
    if (!/^[a-z_][a-z0-9_]*$/.test(this.#schema)) throw new Error(`Invalid pg-boss schema name: ${this.#schema}`);
    this.#queueDefaults = {
      retryLimit: options.retryLimit ?? defaults.retryLimit,
      retryDelay: options.retryDelay ?? defaults.retryDelay,
      retryBackoff: options.retryBackoff ?? defaults.retryBackoff,
      expireInSeconds: options.expireInSeconds ?? defaults.expireInSeconds,
    };
    this.#pollingIntervalMs = options.pollingIntervalMs ?? defaults.pollingIntervalMs;
    this.#log = options.logger;
  }

  start(): Promise<void> {
    this.#starting ??= this.#start().catch((error: unknown) => {
      this.#starting = undefined;
      throw error;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    const boss = new PgBoss({
      connectionString: this.#options.url,
      schema: this.#schema,
      max: this.#options.max ?? defaults.max,
      application_name: this.#options.applicationName ?? "event-bus",
      // An unreachable database must fail a publish (the relay retries), not hang it.
      connectionTimeoutMillis: 10_000,
      migrate: true,
      supervise: true,
      schedule: false,
      maintenanceIntervalSeconds: this.#options.maintenanceIntervalSeconds ?? defaults.maintenanceIntervalSeconds,
      ...this.#queueDefaults,
    } as PgBoss.ConstructorOptions);
    boss.on("error", (error) => this.#log?.warn({ err: error }, "event bus: pg-boss error"));
    try {
      await boss.start();
      const topology = this.#options.topology ?? eventTopology;
      await this.#withQueueLock(async () => {
        for (const [consumer, topics] of Object.entries(topology)) {
          for (const topic of topics) await this.#ensureQueue(boss, consumer, topic, this.#queueDefaults, false);
        }
      });
    } catch (error) {
      await boss.stop({ graceful: false }).catch(() => {});
      // stop() is a no-op for a boss whose start() failed, but its pool may be open.
      await (boss.getDb() as unknown as { close?: () => Promise<void> }).close?.().catch(() => {});
      throw error;
    }
    this.#boss = boss;
  }

  /**
   * Creates the queue and its subscription if missing. Only a subscriber overwrites the
   * settings of an existing queue: a publisher's start must not reset the retry policy a
   * consumer chose.
   */
  async #ensureQueue(boss: PgBoss, consumer: string, topic: Topic, settings: QueueSettings, update: boolean): Promise<string> {
    if (!consumerNamePattern.test(consumer)) {
      throw new AppError("invalid_argument", `Invalid consumer name "${consumer}" (lowercase letters, digits, - and _)`);
    }
    const name = queueName(consumer, topic);
    // First: the queue's dead_letter column references it.
    const deadLetter = deadLetterQueueName(consumer, topic);
    await boss.createQueue(deadLetter, { name: deadLetter });
    await boss.createQueue(name, { name, ...settings, deadLetter });
    if (update) await boss.updateQueue(name, { name, ...settings, deadLetter });
    await boss.subscribe(topic, name);
    return name;
  }

  /**
   * Every process ensures the whole topology at start; pg-boss's create_queue (which
   * creates a partition table) deadlocks when several processes run it at once, so
   * queue changes are serialized across processes by an advisory lock held on a
   * connection of its own for the length of one batch of changes.
   */
  async #withQueueLock(fn: () => Promise<void>): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.url, connectionTimeoutMillis: 10_000 });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [QUEUE_LOCK_KEY]);
      await fn();
    } finally {
      // Closing the session releases the lock even if unlocking fails.
      await client.end().catch(() => {});
    }
  }

  #started(): PgBoss {
    if (!this.#boss || this.#stopping) throw new AppError("unavailable", "Event bus is not started");
    return this.#boss;
  }

  async publish(envelopes: readonly EventEnvelope[]): Promise<void> {
    const boss = this.#started();
    if (envelopes.length === 0) return;
    // stop() waits for these before closing the pool under them.
    const publishing = this.#publish(boss, envelopes);
    this.#publishing.add(publishing);
    try {
      await publishing;
    } finally {
      this.#publishing.delete(publishing);
    }
  }

  async #publish(boss: PgBoss, envelopes: readonly EventEnvelope[]): Promise<void> {
    const topics = [...new Set(envelopes.map((e) => e.topic))];
    // pg-boss's own publish() looks up the same table but swallows failed sends, which
    // would let the relay mark lost events as published.
    const { rows } = await boss
      .getDb()
      .executeSql(`select event, name from ${this.#schema}.subscription where event = any($1::text[])`, [topics]);
    const queuesByTopic = new Map<string, string[]>();
    for (const row of rows as Array<{ event: string; name: string }>) {
      queuesByTopic.set(row.event, [...(queuesByTopic.get(row.event) ?? []), row.name]);
    }
    const jobs: Array<{ id: string | null; name: string; data: EventEnvelopeJson; ord: number }> = [];
    for (const envelope of envelopes) {
      const data = envelopeToJson(envelope);
      for (const name of queuesByTopic.get(envelope.topic) ?? []) {
        // The event id as job id makes a republished event (relay crashed before marking
        // it published) a no-op while the first job is still in the queue table.
        jobs.push({ id: isUuid(envelope.id) ? envelope.id : null, name, data, ord: jobs.length });
      }
    }
    if (jobs.length === 0) return;
    // One statement for all jobs: either every subscriber got the batch or none did.
    // pg-boss's own insert() gives every job of a statement the same created_on, and
    // queues hand jobs out by created_on and then by (random) id, so a batch would come
    // out shuffled; here created_on grows by a microsecond per job, keeping publish
    // order and with it each key's order. Otherwise it is pg-boss 10's insert with the
    // queue's settings (every queue here is created with all of them).
    await boss.getDb().executeSql(
      `insert into ${this.#schema}.job
         (id, name, data, priority, created_on, start_after, dead_letter, expire_in, keep_until,
          retry_limit, retry_delay, retry_backoff, policy)
       select
         coalesce(j.id, gen_random_uuid()), j.name, j.data, 0,
         now() + j.ord * interval '1 microsecond', now(),
         q.dead_letter,
         coalesce(q.expire_seconds, 900) * interval '1 second',
         now() + coalesce(q.retention_minutes * interval '1 minute', interval '14 days'),
         coalesce(q.retry_limit, 2),
         case when coalesce(q.retry_backoff, false) then greatest(coalesce(q.retry_delay, 0), 1) else coalesce(q.retry_delay, 0) end,
         coalesce(q.retry_backoff, false),
         q.policy
       from json_to_recordset($1) as j (id uuid, name text, data jsonb, ord integer)
       join ${this.#schema}.queue q on q.name = j.name
       on conflict do nothing`,
      [JSON.stringify(jobs)],
    );
    for (const topic of topics) {
      await boss
        .getDb()
        .executeSql("select pg_notify($1, $2)", [busChannel, topic])
        .catch((error: unknown) => this.#log?.debug({ err: error }, "event bus: notify failed"));
    }
    for (const subscription of this.#subscriptions.values()) {
      if (topics.includes(subscription.topic)) subscription.wakeup.wake();
    }
  }

  async subscribe(consumer: string, topics: readonly Topic[], handler: EventHandler, options: SubscribeOptions = {}): Promise<void> {
    const boss = this.#started();
    const settings: QueueSettings = {
      retryLimit: options.retryLimit ?? this.#queueDefaults.retryLimit,
      retryDelay: options.retryDelay ?? this.#queueDefaults.retryDelay,
      retryBackoff: options.retryBackoff ?? this.#queueDefaults.retryBackoff,
      expireInSeconds: options.expireInSeconds ?? this.#queueDefaults.expireInSeconds,
    };
    const unique = [...new Set(topics)];
    for (const topic of unique) {
      if (this.#subscriptions.has(queueName(consumer, topic))) {
        throw new AppError("already_exists", `${consumer} is already subscribed to ${topic} in this process`);
      }
    }
    await this.#withQueueLock(async () => {
      for (const topic of unique) await this.#ensureQueue(boss, consumer, topic, settings, true);
    });
    const added: Subscription[] = [];
    const observed = observeDeliveries(consumer, handler);
    for (const topic of unique) {
      const queue = queueName(consumer, topic);
      added.push({
        consumer,
        topic,
        queue,
        handler: observed,
        concurrency: Math.max(1, options.concurrency ?? defaults.concurrency),
        expireInSeconds: settings.expireInSeconds,
        wakeup: new Wakeup(),
        stopped: false,
      });
    }
    this.#listen();
    for (const subscription of added) {
      this.#subscriptions.set(subscription.queue, subscription);
      subscription.loop = this.#run(boss, subscription);
    }
  }

  #listen(): void {
    if (this.#listener) return;
    this.#listener = listenForNotifications({
      channel: busChannel,
      logger: this.#log,
      connect: async () => {
        const client = new pg.Client({
          connectionString: this.#options.url,
          application_name: `${this.#options.applicationName ?? "event-bus"}-listen`,
          connectionTimeoutMillis: 10_000,
        });
        await client.connect();
        return { client, close: () => client.end() };
      },
      onNotification: (topic) => {
        for (const subscription of this.#subscriptions.values()) {
          if (subscription.topic === topic) subscription.wakeup.wake();
        }
      },
      onConnect: () => {
        for (const subscription of this.#subscriptions.values()) subscription.wakeup.wake();
      },
    });
  }

  async #run(boss: PgBoss, subscription: Subscription): Promise<void> {
    while (!subscription.stopped) {
      let jobs: PgBoss.JobWithMetadata<unknown>[] = [];
      try {
        jobs = await boss.fetch<unknown>(subscription.queue, { batchSize: subscription.concurrency, includeMetadata: true });
      } catch (error) {
        this.#log?.warn({ err: error, queue: subscription.queue }, "event bus: fetch failed");
      }
      if (jobs.length === 0) {
        if (!subscription.stopped) await subscription.wakeup.wait(this.#pollingIntervalMs);
        continue;
      }
      await Promise.all(jobs.map((job) => this.#deliver(boss, subscription, job)));
    }
  }

  async #deliver(boss: PgBoss, subscription: Subscription, job: PgBoss.JobWithMetadata<unknown>): Promise<void> {
    const started = performance.now();
    const context = { queue: subscription.queue, jobId: job.id, attempt: job.retryCount + 1 };
    try {
      await subscription.handler(envelopeFromJson(job.data));
    } catch (error) {
      const final = job.retryCount >= job.retryLimit;
      this.#log?.[final ? "error" : "warn"](
        { ...context, err: error },
        final ? "event handler failed; retries exhausted, giving up" : "event handler failed; will retry",
      );
      // If the acknowledgement itself fails, the job stays active and expires into a retry.
      await boss
        .fail(subscription.queue, job.id, { message: error instanceof Error ? error.message : String(error) })
        .catch((ackError: unknown) => this.#log?.warn({ ...context, err: ackError }, "event bus: could not record failure"));
      return;
    }
    const elapsed = performance.now() - started;
    if (elapsed > subscription.expireInSeconds * 1000) {
      this.#log?.warn({ ...context, ms: Math.round(elapsed) }, "event handler outlived expireInSeconds; it may have run twice");
    }
    await boss
      .complete(subscription.queue, job.id)
      .catch((ackError: unknown) => this.#log?.warn({ ...context, err: ackError }, "event bus: could not acknowledge; will be redelivered"));
  }

  stop(): Promise<void> {
    this.#stopCall ??= this.#stop().finally(() => {
      this.#stopCall = undefined;
    });
    return this.#stopCall;
  }

  async #stop(): Promise<void> {
    if (this.#starting) await this.#starting.catch(() => {});
    const boss = this.#boss;
    if (!boss) return;
    this.#stopping = true;
    for (const subscription of this.#subscriptions.values()) {
      subscription.stopped = true;
      subscription.wakeup.wake();
    }
    const loops = [...this.#subscriptions.values()].map((s) => s.loop);
    const timeoutMs = this.#options.stopTimeoutMs ?? defaults.stopTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      Promise.all(loops).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      // Their jobs stay active and expire into retries; nothing is lost.
      this.#log?.warn({ timeoutMs }, "event bus: handlers still running at stop; they will be redelivered");
    }
    await Promise.allSettled(this.#publishing);
    await this.#listener?.stop();
    await boss.stop({ graceful: false, close: true });
    this.#listener = undefined;
    this.#subscriptions.clear();
    this.#boss = undefined;
    this.#starting = undefined;
    this.#stopping = false;
  }

  /**
   * pg-boss copies a job whose retries are exhausted into the queue's dead-letter queue
   * (`<consumer>.<topic>.dlq`, never fetched), with the error as its output; it is kept
   * there for about twice the queue's retention (14 days by default).
   */
  async listDeadLetters(filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
    const boss = this.#started();
    const { rows } = await boss.getDb().executeSql(
      `select id, name, data, output, retry_limit, created_on from ${this.#schema}.job
       where name like '%.dlq' and state = 'created'
         and ($1::text is null or split_part(name, '.', 1) = $1)
         and ($2::text is null or data->>'topic' = $2)
         and ($3::text[] is null or data->>'id' = any($3))
       order by created_on, id
       limit $4`,
      [filter.consumer ?? null, filter.topic ?? null, filter.eventIds ? [...filter.eventIds] : null, filter.limit ?? null],
    );
    const letters: DeadLetter[] = [];
    for (const row of rows as Array<{ id: string; name: string; data: unknown; output: unknown; retry_limit: number; created_on: Date }>) {
      let envelope: EventEnvelope;
      try {
        envelope = envelopeFromJson(row.data);
      } catch (error) {
        this.#log?.warn({ queue: row.name, jobId: row.id, err: error }, "event bus: dead letter is not an event envelope; skipped");
        continue;
      }
      const output = row.output as { message?: unknown } | null;
      letters.push({
        ref: `${row.name}/${row.id}`,
        consumer: row.name.split(".")[0]!,
        envelope,
        error: typeof output?.message === "string" ? output.message : JSON.stringify(output ?? null),
        attempts: row.retry_limit + 1,
        failedAt: new Date(row.created_on),
      });
    }
    return letters;
  }

  async replayDeadLetters(filter: DeadLetterFilter = {}): Promise<number> {
    const boss = this.#started();
    const letters = await this.listDeadLetters(filter);
    if (letters.length === 0) return 0;
    // A fresh job (new id, full retry budget) in the consumer's own queue only; then the
    // dead letter goes. A crash in between replays it twice, which consumers tolerate.
    await boss.insert(letters.map((l) => ({ name: queueName(l.consumer, l.envelope.topic), data: envelopeToJson(l.envelope) })));
    for (const letter of letters) {
      const [queue, id] = [letter.ref.slice(0, letter.ref.lastIndexOf("/")), letter.ref.slice(letter.ref.lastIndexOf("/") + 1)];
      await boss.deleteJob(queue, id);
    }
    for (const subscription of this.#subscriptions.values()) subscription.wakeup.wake();
    for (const topic of new Set(letters.map((l) => l.envelope.topic))) {
      await boss
        .getDb()
        .executeSql("select pg_notify($1, $2)", [busChannel, topic])
        .catch(() => {});
    }
    this.#log?.info({ count: letters.length }, "event bus: replayed dead letters");
    return letters.length;
  }

  async ping(): Promise<number> {
    const boss = this.#started();
    const started = performance.now();
    await boss.getDb().executeSql("select 1", []);
    return performance.now() - started;
  }
}
