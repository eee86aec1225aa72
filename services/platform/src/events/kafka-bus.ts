import { randomUUID } from "node:crypto";
import kafkajs, {
  Kafka,
  logLevel as KafkaLogLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachMessagePayload,
  type KafkaMessage,
  type LogEntry,
  type Producer,
  type RetryOptions,
} from "kafkajs";
import { AppError } from "../errors.js";
import type { Logger } from "../logger.js";
import { observeDeliveries } from "../observability/events.js";
import type { DeadLetter, DeadLetterFilter, DeadLetters, EventBus, EventHandler, SubscribeOptions } from "./bus.js";
import { topics as catalogTopics, type Topic } from "./catalog.js";
import type { EventEnvelope } from "./envelope.js";
import {
  deadLetterHeaders,
  deadLetterTopicName,
  envelopeFromMessage,
  envelopeToMessage,
  headerText,
  kafkaTopicName,
  replayForHeader,
} from "./kafka-records.js";
import { backoffMs, sleep } from "./wakeup.js";

export interface KafkaEventBusOptions {
  /** host:port of one or more brokers (KAFKA_BROKERS). */
  brokers: readonly string[];
  /** Names this process's connections in the broker's logs and quotas (KAFKA_CLIENT_ID). */
  clientId?: string;
  logger?: Logger;
  /**
   * Prepended to every Kafka topic name: several installs (or test runs) can share one
   * cluster. The envelope's topic stays the catalog name.
   */
  topicPrefix?: string;
  /** Partitions of a topic this bus creates (KAFKA_PARTITIONS). */
  partitions?: number;
  /** Per-topic partition counts (KAFKA_TOPIC_PARTITIONS), overriding `partitions`. */
  topicPartitions?: Partial<Record<Topic, number>>;
  /** Partitions of each dead-letter topic. */
  deadLetterPartitions?: number;
  /** Replicas of every topic this bus creates (KAFKA_REPLICATION_FACTOR). */
  replicationFactor?: number;
  /** Create missing topics at start; off where an operator (or the Helm chart) manages them. */
  createTopics?: boolean;

  /** Defaults of subscribe() options. Retries after the first failed attempt. */
  retryLimit?: number;
  /** Seconds before the first retry. */
  retryDelay?: number;
  retryBackoff?: boolean;
  /** Cap of one retry delay, seconds. */
  retryMaxDelay?: number;
  /** Partitions of one consumer handled at the same time in this process. */
  concurrency?: number;

  /** A member that misses heartbeats this long is dropped from its group. Broker minimum 6000. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** How long the group waits for members to rejoin during a rebalance. */
  rebalanceTimeoutMs?: number;
  /** Longest wait of an idle fetch; bounds how long stop() waits for a fetch. */
  maxWaitTimeMs?: number;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Retries of one client request (kafkajs' retry); the relay retries publishes on top. */
  clientRetries?: number;
  /** How long stop() waits for running handlers before closing anyway. */
  stopTimeoutMs?: number;
}

const defaults = {
  clientId: "transcribe",
  partitions: 3,
  deadLetterPartitions: 1,
  replicationFactor: 1,
  retryLimit: 5,
  retryDelay: 1,
  retryBackoff: true,
  retryMaxDelay: 30,
  concurrency: 3,
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  rebalanceTimeoutMs: 60_000,
  maxWaitTimeMs: 1_000,
  connectionTimeoutMs: 3_000,
  requestTimeoutMs: 30_000,
  clientRetries: 5,
  stopTimeoutMs: 10_000,
} as const;

const consumerNamePattern = /^[a-z][a-z0-9_-]*$/;
/** Longest error message kept in a dead-letter header. */
const maxErrorLength = 4_000;

interface Route {
  topic: Topic;
  handler: EventHandler;
  retryLimit: number;
  retryDelayMs: number;
  retryBackoff: boolean;
}

/** One Kafka consumer group member per consumer name in this process, serving all its topics. */
interface Group {
  name: string;
  routes: Map<string, Route>;
  concurrency: number;
  consumer?: Consumer;
  /** Serialises (re)starts of this group's consumer. */
  chain: Promise<void>;
  crashes: number;
  restartTimer?: NodeJS.Timeout;
}

// kafkajs is CommonJS; Node's ESM loader sees only some of its named exports.
const { KafkaJSError } = kafkajs;

/** Thrown out of a handler's retry wait so kafkajs stops without committing. */
class StoppingError extends KafkaJSError {
  override readonly name = "StoppingError";
  constructor() {
    super("event bus is stopping", { retriable: false });
  }
}

/**
 * The cluster's event bus: Kafka through kafkajs.
 *
 * One topic per catalog topic (created at start with the configured partition count),
 * records keyed by the aggregate id so one aggregate's events stay on one partition and
 * in order; the idempotent producer (acks=all, one request in flight) keeps that order
 * and writes no duplicates of its own retries. Each consumer name is one consumer group;
 * a process runs one group member per name, serving every topic it subscribed to.
 *
 * Offsets are committed per record, only after the handler resolved (or the record went
 * to the dead-letter topic), so a member that dies or loses its partitions mid-handler
 * leaves the record to be delivered again: at least once, with consume() making the
 * effects happen once. A failing handler is retried in place with backoff (the partition
 * waits, keeping per-key order, and heartbeats go on), then the record goes to
 * `<topic>.dlq` with the error in its headers. Handlers must be short: long work belongs
 * in a durable job table leased by workers, or the partition stalls and the member may be
 * dropped from its group.
 */
export class KafkaEventBus implements EventBus, DeadLetters {
  readonly #options: KafkaEventBusOptions;
  readonly #log: Logger | undefined;
  readonly #prefix: string;
  readonly #clientId: string;
  #kafka: Kafka | undefined;
  #admin: Admin | undefined;
  #producer: Producer | undefined;
  #starting: Promise<void> | undefined;
  #stopCall: Promise<void> | undefined;
  #stopping: AbortController | undefined;
  readonly #groups = new Map<string, Group>();
  readonly #publishing = new Set<Promise<unknown>>();

  constructor(options: KafkaEventBusOptions) {
    if (options.brokers.length === 0) throw new Error("KafkaEventBus needs at least one broker");
    this.#options = options;
    this.#log = options.logger;
    this.#prefix = options.topicPrefix ?? "";
    this.#clientId = options.clientId ?? defaults.clientId;
  }

  start(): Promise<void> {
    this.#starting ??= this.#start().catch((error: unknown) => {
      this.#starting = undefined;
      throw error;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    const o = this.#options;
    const kafka = new Kafka({
      clientId: this.#clientId,
      brokers: [...o.brokers],
      connectionTimeout: o.connectionTimeoutMs ?? defaults.connectionTimeoutMs,
      requestTimeout: o.requestTimeoutMs ?? defaults.requestTimeoutMs,
      retry: this.#retry(),
      logLevel: KafkaLogLevel.WARN,
      logCreator: () => (entry) => this.#logKafka(entry),
    });
    // Start-up fails fast on unreachable brokers; the service's supervisor retries.
    const admin = kafka.admin({ retry: { retries: 2, initialRetryTime: 300, maxRetryTime: 2_000 } });
    const producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: this.#retry(),
    });
    try {
      try {
        await admin.connect();
        await admin.describeCluster();
      } catch (error) {
        throw new AppError(
          "unavailable",
          `Kafka is unreachable at ${o.brokers.join(",")} (KAFKA_BROKERS): ${describe(error)}. ` +
            "Start a local broker with `deploy/kafka/kafka.sh start`, or point KAFKA_BROKERS at a running one.",
        );
      }
      if (o.createTopics ?? true) await this.#ensureTopics(admin);
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => {});
      await admin.disconnect().catch(() => {});
      throw error;
    }
    this.#kafka = kafka;
    this.#admin = admin;
    this.#producer = producer;
    this.#stopping = new AbortController();
  }

  #retry(): RetryOptions {
    return {
      retries: this.#options.clientRetries ?? defaults.clientRetries,
      initialRetryTime: 300,
      maxRetryTime: 10_000,
    };
  }

  #logKafka({ level, log }: LogEntry): void {
    if (!this.#log) return;
    const { message, timestamp: _t, logger: _l, ...rest } = log as Record<string, unknown> & { message: string };
    const line = `kafka: ${message}`;
    // kafkajs logs every failed request it is about to retry, each connection attempt and
    // each consumer restart; the bus and the relay report what actually fails (publish
    // failed, consumer stopped, dead letter), so those are debug here. Limited producer
    // retries are deliberate: the relay retries, and consumers tolerate duplicates.
    const routine = /connect|seed broker|coordinator|leader|Restarting the consumer|Crash:|rebalanc|Limiting retries/i.test(message);
    if ((level === KafkaLogLevel.ERROR || level === KafkaLogLevel.WARN) && !routine) this.#log.warn(rest, line);
    else if (level <= KafkaLogLevel.INFO) this.#log.debug(rest, line);
    else this.#log.trace(rest, line);
  }

  /** The partition count a topic is created with. */
  partitionsOf(topic: Topic): number {
    return this.#options.topicPartitions?.[topic] ?? this.#options.partitions ?? defaults.partitions;
  }

  async #ensureTopics(admin: Admin): Promise<void> {
    const wanted = new Map<string, number>();
    for (const topic of catalogTopics) {
      wanted.set(kafkaTopicName(topic, this.#prefix), this.partitionsOf(topic));
      wanted.set(deadLetterTopicName(topic, this.#prefix), this.#options.deadLetterPartitions ?? defaults.deadLetterPartitions);
    }
    const existing = new Set(await admin.listTopics());
    const missing = [...wanted].filter(([name]) => !existing.has(name));
    if (missing.length > 0) {
      // false when another process created them first: fine.
      await admin.createTopics({
        waitForLeaders: true,
        timeout: 30_000,
        topics: missing.map(([topic, numPartitions]) => ({
          topic,
          numPartitions,
          replicationFactor: this.#options.replicationFactor ?? defaults.replicationFactor,
        })),
      });
      this.#log?.info({ topics: missing.map(([name]) => name) }, "event bus: created Kafka topics");
    }
    const present = [...wanted].filter(([name]) => existing.has(name));
    if (present.length > 0) {
      const metadata = await admin.fetchTopicMetadata({ topics: present.map(([name]) => name) });
      for (const topic of metadata.topics) {
        const want = wanted.get(topic.name);
        if (want !== undefined && topic.partitions.length !== want) {
          // Not changed here: more partitions move keys to other partitions, which breaks
          // per-key order for events already in flight. An operator decides when.
          this.#log?.warn(
            { topic: topic.name, partitions: topic.partitions.length, configured: want },
            "event bus: Kafka topic has a different partition count than configured; leaving it as it is",
          );
        }
      }
    }
  }

  #started(): { kafka: Kafka; admin: Admin; producer: Producer; signal: AbortSignal } {
    if (!this.#kafka || !this.#admin || !this.#producer || !this.#stopping || this.#stopping.signal.aborted) {
      throw new AppError("unavailable", "Event bus is not started");
    }
    return { kafka: this.#kafka, admin: this.#admin, producer: this.#producer, signal: this.#stopping.signal };
  }

  async publish(envelopes: readonly EventEnvelope[]): Promise<void> {
    const { producer } = this.#started();
    if (envelopes.length === 0) return;
    const byTopic = new Map<string, EventEnvelope[]>();
    for (const envelope of envelopes) {
      const name = kafkaTopicName(envelope.topic, this.#prefix);
      byTopic.set(name, [...(byTopic.get(name) ?? []), envelope]);
    }
    // acks=-1 (all in-sync replicas): resolved means stored. A batch that fails partway is
    // published again whole by the relay; consumers deduplicate.
    const sending = producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list.map((e) => envelopeToMessage(e)) })),
    });
    this.#publishing.add(sending);
    try {
      await sending;
    } finally {
      this.#publishing.delete(sending);
    }
  }

  async subscribe(consumer: string, topics: readonly Topic[], handler: EventHandler, options: SubscribeOptions = {}): Promise<void> {
    this.#started();
    if (!consumerNamePattern.test(consumer)) {
      throw new AppError("invalid_argument", `Invalid consumer name "${consumer}" (lowercase letters, digits, - and _)`);
    }
    const group = this.#groups.get(consumer) ?? {
      name: consumer,
      routes: new Map<string, Route>(),
      concurrency: 1,
      chain: Promise.resolve(),
      crashes: 0,
    };
    const unique = [...new Set(topics)];
    for (const topic of unique) {
      if (group.routes.has(kafkaTopicName(topic, this.#prefix))) {
        throw new AppError("already_exists", `${consumer} is already subscribed to ${topic} in this process`);
      }
    }
    const o = this.#options;
    const observed = observeDeliveries(consumer, handler);
    for (const topic of unique) {
      group.routes.set(kafkaTopicName(topic, this.#prefix), {
        topic,
        handler: observed,
        retryLimit: options.retryLimit ?? o.retryLimit ?? defaults.retryLimit,
        retryDelayMs: (options.retryDelay ?? o.retryDelay ?? defaults.retryDelay) * 1000,
        retryBackoff: options.retryBackoff ?? o.retryBackoff ?? defaults.retryBackoff,
      });
    }
    group.concurrency = Math.max(group.concurrency, options.concurrency ?? o.concurrency ?? defaults.concurrency);
    this.#groups.set(consumer, group);
    // A kafkajs consumer cannot add topics while it runs: a later subscribe() of the same
    // name restarts this process's member with all of them (one rebalance, at start-up).
    try {
      await this.#restartGroup(group);
    } catch (error) {
      for (const topic of unique) group.routes.delete(kafkaTopicName(topic, this.#prefix));
      if (group.routes.size === 0) this.#groups.delete(consumer);
      throw error;
    }
  }

  /**
   * Restarts a group's consumer after a backoff, and again after each failed restart: the
   * broker that made the consumer stop is often still down when the first restart runs,
   * and a restart that fails once must not leave the group without a consumer for good.
   */
  #scheduleRestart(group: Group, error: unknown, message: string): void {
    if (!this.#stopping || this.#stopping.signal.aborted) return;
    group.crashes += 1;
    const delay = backoffMs(group.crashes, 1_000, 30_000);
    this.#log?.error({ consumer: group.name, err: error, retryInMs: Math.round(delay) }, message);
    clearTimeout(group.restartTimer);
    group.restartTimer = setTimeout(() => {
      this.#restartGroup(group).catch((failure: unknown) => this.#scheduleRestart(group, failure, "event bus: consumer restart failed; trying again"));
    }, delay);
  }

  #restartGroup(group: Group): Promise<void> {
    const next = group.chain.then(async () => {
      const { kafka, signal } = this.#started();
      if (group.consumer) await this.#disconnect(group.consumer);
      group.consumer = undefined;
      if (signal.aborted) return;
      const o = this.#options;
      const consumer = kafka.consumer({
        groupId: group.name,
        sessionTimeout: o.sessionTimeoutMs ?? defaults.sessionTimeoutMs,
        heartbeatInterval: o.heartbeatIntervalMs ?? defaults.heartbeatIntervalMs,
        rebalanceTimeout: o.rebalanceTimeoutMs ?? defaults.rebalanceTimeoutMs,
        maxWaitTimeInMs: o.maxWaitTimeMs ?? defaults.maxWaitTimeMs,
        allowAutoTopicCreation: false,
        retry: this.#retry(),
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (signal.aborted) return;
        if (payload.restart) {
          this.#log?.warn({ consumer: group.name, err: payload.error }, "event bus: Kafka consumer crashed; kafkajs restarts it");
          return;
        }
        // kafkajs gives up on errors it deems fatal; a bus must keep consuming.
        this.#scheduleRestart(group, payload.error, "event bus: Kafka consumer stopped; restarting it");
      });
      consumer.on(consumer.events.GROUP_JOIN, () => {
        group.crashes = 0;
      });
      try {
        await consumer.connect();
        // A group's first member reads from the oldest retained record: events published
        // before the consumer first ran wait for it, as they do in the embedded bus.
        await consumer.subscribe({ topics: [...group.routes.keys()], fromBeginning: true });
        await consumer.run({
          autoCommit: false,
          partitionsConsumedConcurrently: group.concurrency,
          eachMessage: (payload) => this.#deliver(group, consumer, payload, signal),
        });
      } catch (error) {
        await consumer.disconnect().catch(() => {});
        if (signal.aborted) return;
        throw error;
      }
      group.consumer = consumer;
    });
    group.chain = next.catch(() => {});
    return next;
  }

  async #deliver(group: Group, consumer: Consumer, payload: EachMessagePayload, signal: AbortSignal): Promise<void> {
    const { topic, partition, message, heartbeat, pause } = payload;
    if (signal.aborted) throw new StoppingError();
    const commit = () => consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
    const route = group.routes.get(topic);
    if (!route) {
      // Only while replicas with different subscriptions share a group (a rolling update):
      // leave the partition uncommitted for a member that serves it.
      this.#log?.warn({ consumer: group.name, topic, partition }, "event bus: assigned a topic this process does not handle; pausing it");
      pause();
      return;
    }
    const replayFor = headerText(message.headers, replayForHeader);
    if (replayFor !== undefined && replayFor !== group.name) {
      await commit();
      return;
    }
    const context = { consumer: group.name, topic, partition, offset: message.offset };
    let envelope: EventEnvelope;
    try {
      envelope = envelopeFromMessage(message);
    } catch (error) {
      // No retry can fix a record that does not parse.
      this.#log?.error({ ...context, err: error }, "event bus: malformed record; dead-lettering it");
      await this.#deadLetter(group.name, route.topic, partition, message, error, 0);
      await commit();
      return;
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        await route.handler(envelope);
        break;
      } catch (error) {
        if (signal.aborted) throw new StoppingError();
        if (attempt > route.retryLimit) {
          this.#log?.error({ ...context, eventId: envelope.id, attempts: attempt, err: error }, "event handler failed; retries exhausted, dead-lettering");
          await this.#deadLetter(group.name, route.topic, partition, message, error, attempt);
          break;
        }
        const delay = route.retryBackoff
          ? backoffMs(attempt, route.retryDelayMs, (this.#options.retryMaxDelay ?? defaults.retryMaxDelay) * 1000)
          : route.retryDelayMs;
        this.#log?.warn({ ...context, eventId: envelope.id, attempt, retryInMs: Math.round(delay), err: error }, "event handler failed; will retry");
        await this.#waitWithHeartbeats(delay, heartbeat, signal);
      }
    }
    // If this fails (broker gone, partition revoked) the record is delivered again: harmless.
    await commit();
  }

  /** Sleeps between attempts while keeping the member alive; throws on stop or rebalance. */
  async #waitWithHeartbeats(ms: number, heartbeat: () => Promise<void>, signal: AbortSignal): Promise<void> {
    const interval = this.#options.heartbeatIntervalMs ?? defaults.heartbeatIntervalMs;
    const deadline = Date.now() + ms;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await sleep(Math.min(interval, left), signal);
      if (signal.aborted) throw new StoppingError();
      // Throws while the group rebalances: the record stays uncommitted for the new owner.
      await heartbeat();
    }
  }

  async #deadLetter(consumer: string, topic: Topic, partition: number, message: KafkaMessage, error: unknown, attempts: number): Promise<void> {
    const { producer } = this.#started();
    const headers: Record<string, string | Buffer> = {};
    for (const [name, value] of Object.entries(message.headers ?? {})) {
      const text = headerText(message.headers, name);
      if (value !== undefined && text !== undefined) headers[name] = text;
    }
    Object.assign(headers, {
      [deadLetterHeaders.consumer]: consumer,
      [deadLetterHeaders.error]: describe(error).slice(0, maxErrorLength),
      [deadLetterHeaders.attempts]: String(attempts),
      [deadLetterHeaders.failedAt]: new Date().toISOString(),
      [deadLetterHeaders.sourcePartition]: String(partition),
      [deadLetterHeaders.sourceOffset]: message.offset,
    });
    delete headers[replayForHeader];
    await producer.send({
      topic: deadLetterTopicName(topic, this.#prefix),
      acks: -1,
      messages: [{ key: message.key, value: message.value, headers }],
    });
  }

  async listDeadLetters(filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
    const letters = await this.#scanDeadLetters(filter);
    return filter.limit === undefined ? letters : letters.slice(0, filter.limit);
  }

  async replayDeadLetters(filter: DeadLetterFilter = {}): Promise<number> {
    const { producer } = this.#started();
    let letters = await this.#scanDeadLetters(filter);
    if (filter.limit !== undefined) letters = letters.slice(0, filter.limit);
    if (letters.length === 0) return 0;
    const replays = new Map<string, ReturnType<typeof envelopeToMessage>[]>();
    const markers = new Map<string, ReturnType<typeof envelopeToMessage>[]>();
    for (const letter of letters) {
      const topic = kafkaTopicName(letter.envelope.topic, this.#prefix);
      replays.set(topic, [...(replays.get(topic) ?? []), envelopeToMessage(letter.envelope, { [replayForHeader]: letter.consumer })]);
      const dlq = deadLetterTopicName(letter.envelope.topic, this.#prefix);
      markers.set(dlq, [
        ...(markers.get(dlq) ?? []),
        { key: letter.envelope.key, value: null, headers: { [deadLetterHeaders.replayed]: letter.ref, [deadLetterHeaders.consumer]: letter.consumer } },
      ]);
    }
    // Replays first: a crash in between replays a letter twice, never loses one.
    await producer.sendBatch({ acks: -1, topicMessages: [...replays].map(([topic, messages]) => ({ topic, messages })) });
    await producer.sendBatch({ acks: -1, topicMessages: [...markers].map(([topic, messages]) => ({ topic, messages })) });
    this.#log?.info({ count: letters.length }, "event bus: replayed dead letters");
    return letters.length;
  }

  /**
   * Reads the dead-letter topics to their end with a throwaway consumer group (kafkajs has
   * no manual partition assignment) and drops the letters a replay marker names.
   */
  async #scanDeadLetters(filter: DeadLetterFilter): Promise<DeadLetter[]> {
    const { kafka, admin } = this.#started();
    const wanted = (filter.topic ? [filter.topic] : [...catalogTopics]).map((t) => deadLetterTopicName(t, this.#prefix));
    const existing = new Set(await admin.listTopics());
    const names = wanted.filter((name) => existing.has(name));
    const ends = new Map<string, bigint>();
    for (const name of names) {
      for (const p of await retryRetriable(() => admin.fetchTopicOffsets(name))) {
        if (BigInt(p.high) > BigInt(p.low)) ends.set(`${name}/${p.partition}`, BigInt(p.high));
      }
    }
    if (ends.size === 0) return [];
    const groupId = `${this.#clientId}-dlq-reader-${randomUUID()}`;
    const reader = kafka.consumer({ groupId, maxWaitTimeInMs: 200, sessionTimeout: 10_000, heartbeatInterval: 1_000, retry: this.#retry() });
    const letters = new Map<string, DeadLetter>();
    const replayed = new Set<string>();
    const eventIds = filter.eventIds ? new Set(filter.eventIds) : undefined;
    try {
      await reader.connect();
      await reader.subscribe({ topics: [...new Set([...ends.keys()].map((k) => k.slice(0, k.lastIndexOf("/"))))], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timed out reading the dead-letter topics")), 60_000);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        reader
          .run({
            autoCommit: false,
            eachMessage: async ({ topic, partition, message }) => {
              const ref = `${topic.slice(this.#prefix.length)}/${partition}/${message.offset}`;
              const marker = headerText(message.headers, deadLetterHeaders.replayed);
              if (marker) replayed.add(marker);
              else {
                try {
                  const envelope = envelopeFromMessage(message);
                  letters.set(ref, {
                    ref,
                    consumer: headerText(message.headers, deadLetterHeaders.consumer) ?? "",
                    envelope,
                    error: headerText(message.headers, deadLetterHeaders.error) ?? "",
                    attempts: Number(headerText(message.headers, deadLetterHeaders.attempts) ?? 0),
                    failedAt: new Date(headerText(message.headers, deadLetterHeaders.failedAt) ?? 0),
                  });
                } catch (error) {
                  this.#log?.warn({ ref, err: error }, "event bus: dead letter is not an event envelope; skipped");
                }
              }
              const key = `${topic}/${partition}`;
              const end = ends.get(key);
              if (end !== undefined && BigInt(message.offset) + 1n >= end) ends.delete(key);
              if (ends.size === 0) done();
            },
          })
          .catch(reject);
      });
    } finally {
      await reader.disconnect().catch(() => {});
      await admin.deleteGroups([groupId]).catch(() => {});
    }
    return [...letters.values()]
      .filter((l) => !replayed.has(l.ref))
      .filter((l) => !filter.consumer || l.consumer === filter.consumer)
      .filter((l) => !eventIds || eventIds.has(l.envelope.id))
      .sort((a, b) => a.failedAt.getTime() - b.failedAt.getTime());
  }

  /** Deletes this bus's topics (tests with a topicPrefix clean up with it). */
  async deleteTopics(): Promise<void> {
    const { admin } = this.#started();
    const mine = new Set(catalogTopics.flatMap((t) => [kafkaTopicName(t, this.#prefix), deadLetterTopicName(t, this.#prefix)]));
    const existing = (await admin.listTopics()).filter((name) => mine.has(name));
    if (existing.length > 0) await admin.deleteTopics({ topics: existing, timeout: 30_000 });
  }

  async #disconnect(consumer: Consumer): Promise<boolean> {
    const timeoutMs = this.#options.stopTimeoutMs ?? defaults.stopTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      consumer.disconnect().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return done;
  }

  stop(): Promise<void> {
    this.#stopCall ??= this.#stop().finally(() => {
      this.#stopCall = undefined;
    });
    return this.#stopCall;
  }

  async #stop(): Promise<void> {
    if (this.#starting) await this.#starting.catch(() => {});
    if (!this.#kafka || !this.#stopping) return;
    this.#stopping.abort();
    const groups = [...this.#groups.values()];
    for (const group of groups) clearTimeout(group.restartTimer);
    await Promise.all(groups.map((g) => g.chain));
    const results = await Promise.all(groups.map((g) => (g.consumer ? this.#disconnect(g.consumer) : Promise.resolve(true))));
    if (results.includes(false)) {
      // Their records are uncommitted and go to another member, or to this one's next start.
      this.#log?.warn("event bus: handlers still running at stop; their events will be delivered again");
    }
    await Promise.allSettled(this.#publishing);
    await this.#producer?.disconnect().catch(() => {});
    await this.#admin?.disconnect().catch(() => {});
    this.#groups.clear();
    this.#kafka = undefined;
    this.#admin = undefined;
    this.#producer = undefined;
    this.#stopping = undefined;
    this.#starting = undefined;
  }

  async ping(): Promise<number> {
    const { admin } = this.#started();
    const started = performance.now();
    await admin.describeCluster();
    return performance.now() - started;
  }
}

/** Retries what kafkajs' admin does not (e.g. a leader not known yet just after topic creation). */
async function retryRetriable<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || (error as { retriable?: boolean }).retriable !== true) throw error;
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error && !error.message.includes(cause.message) ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}

/** Parses KAFKA_TOPIC_PARTITIONS: "media.files=6,transcription.jobs=12". */
export function parseTopicPartitions(value: string | undefined): Partial<Record<Topic, number>> {
  const result: Partial<Record<Topic, number>> = {};
  if (!value?.trim()) return result;
  for (const part of value.split(",")) {
    const [name, count] = part.split("=").map((s) => s.trim());
    if (!name || !(catalogTopics as readonly string[]).includes(name)) throw new Error(`unknown topic "${name ?? ""}"`);
    const n = Number(count);
    if (!Number.isInteger(n) || n < 1) throw new Error(`partition count of ${name} must be a positive integer`);
    result[name as Topic] = n;
  }
  return result;
}

/** Parses KAFKA_BROKERS: "host:port,host:port". */
export function parseBrokers(value: string): string[] {
  const brokers = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const broker of brokers) {
    if (!/^[^\s:]+:\d{1,5}$/.test(broker)) throw new Error(`"${broker}" is not host:port`);
  }
  return brokers;
}
