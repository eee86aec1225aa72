import { randomUUID } from "node:crypto";
import type { AddressPolicy, HostResolver, Logger } from "@transcribe/platform";
import { type Kysely, sql } from "kysely";
import { Webhook } from "standardwebhooks";
import type { WebhooksDatabase } from "../db/migrations.js";
import { nextAttemptAt } from "../domain/rules.js";
import { type AttemptOutcome, postWebhook } from "./send.js";
import type { SecretBox } from "../secret-box.js";

export interface DeliveryWorkerOptions {
  db: Kysely<WebhooksDatabase>;
  logger: Logger;
  policy: AddressPolicy;
  resolver?: HostResolver;
  timeoutMs: number;
  retryBaseSeconds: number;
  pollMs: number;
  /** Deliveries attempted at once. */
  batch?: number;
  /** Opens the endpoint's sealed signing secret (secret-box.ts). */
  box: SecretBox;
}

/**
 * Sends due deliveries from the table (the outbox of this service): at least once, each
 * signed per Standard Webhooks with the endpoint's secret; a failure schedules the next
 * attempt with exponential backoff until give_up_at. Rows are claimed with a lease
 * (locked_until) under SKIP LOCKED, so replicas never send the same attempt twice at once
 * and a crashed replica's claims come back after the lease.
 */
export class DeliveryWorker {
  readonly #o: DeliveryWorkerOptions;
  #running = false;
  #wake: (() => void) | undefined;
  #wakePending = false;
  #loop: Promise<void> | undefined;
  /** Attempts under way: each runs on its own, so a slow receiver holds only its own slot. */
  readonly #inFlight = new Set<Promise<void>>();
  readonly owner = randomUUID();

  constructor(options: DeliveryWorkerOptions) {
    this.#o = options;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#loop;
  }

  /** Something became due (a new delivery, a resend, a freed slot): look now instead of at the next poll. */
  wake(): void {
    if (this.#wake) this.#wake();
    // Asked while a pass runs: the loop looks again instead of sleeping.
    else this.#wakePending = true;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let worked = 0;
      try {
        worked = await this.#startDue();
      } catch (error) {
        this.#o.logger.error({ err: error }, "webhook delivery pass failed");
      }
      if (worked > 0 || !this.#running) continue;
      if (this.#wakePending) {
        this.#wakePending = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#o.pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
    await Promise.all(this.#inFlight);
  }

  /**
   * Claims as many due deliveries as there are free slots and starts them without waiting:
   * the next pass does not wait for the slowest receiver of this one (each attempt is
   * bounded by timeoutMs in send.ts, and a finished one frees its slot and wakes the loop).
   */
  async #startDue(): Promise<number> {
    const room = (this.#o.batch ?? 10) - this.#inFlight.size;
    if (room <= 0) return 0;
    const ids = await this.#claim(room);
    for (const id of ids) {
      const attempt: Promise<void> = this.#attempt(id)
        .catch((error: unknown) => this.#o.logger.error({ err: error, delivery: id }, "webhook attempt failed unexpectedly"))
        .finally(() => {
          this.#inFlight.delete(attempt);
          this.wake();
        });
      this.#inFlight.add(attempt);
    }
    return ids.length;
  }

  async #claim(limit: number): Promise<string[]> {
    const { db } = this.#o;
    const leaseSeconds = Math.ceil(this.#o.timeoutMs / 1000) + 30;
    const claimed = await sql<{ id: string }>`
      update webhook_deliveries set locked_until = now() + make_interval(secs => ${leaseSeconds})
      where id in (
        select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked)
      returning id`.execute(db);
    return claimed.rows.map((row) => row.id);
  }

  async #attempt(id: string): Promise<void> {
    const { db, logger } = this.#o;
    const row = await db
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
      .select(["d.id", "d.endpoint_id", "d.payload", "d.attempts", "d.give_up_at", "d.event_type", "e.url", "e.secret"])
      .where("d.id", "=", id)
      .executeTakeFirst();
    if (!row) return;
    const body = JSON.stringify(row.payload);
    const sentAt = new Date();
    let secret: string | undefined;
    try {
      secret = this.#o.box.open(row.secret, row.endpoint_id);
    } catch (error) {
      logger.error({ err: error, delivery: id }, "webhook secret cannot be opened");
    }
    const signature = secret === undefined ? undefined : new Webhook(secret).sign(row.id, sentAt, body);
    const headers = { "webhook-id": row.id, "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)), "webhook-signature": signature ?? "" };
    // A secret that no listed key opens is an operator's mistake (a retired key dropped too
    // early): the attempt fails with that reason and is retried, it is never sent unsigned.
    const outcome: AttemptOutcome = signature === undefined ? { ok: false, error: "The endpoint's signing secret cannot be read (WEBHOOK_SECRET_KEYS)" } : await postWebhook(row.url, body, headers, { policy: this.#o.policy, timeoutMs: this.#o.timeoutMs, ...(this.#o.resolver ? { resolver: this.#o.resolver } : {}) });
    const attempts = row.attempts + 1;
    const now = new Date();
    if (outcome.ok) {
      await db
        .updateTable("webhook_deliveries")
        .set({ status: "succeeded", attempts, last_status_code: outcome.statusCode ?? null, last_error: null, delivered_at: now, next_attempt_at: null, locked_until: null })
        .where("id", "=", id)
        .execute();
      logger.info({ delivery: id, event: row.event_type, status: outcome.statusCode }, "webhook delivered");
      return;
    }
    const next = nextAttemptAt(attempts, now, new Date(row.give_up_at), this.#o.retryBaseSeconds);
    await db
      .updateTable("webhook_deliveries")
      .set({
        status: next ? "pending" : "failed",
        attempts,
        last_status_code: outcome.statusCode ?? null,
        last_error: outcome.error ?? null,
        next_attempt_at: next ?? null,
        locked_until: null,
      })
      .where("id", "=", id)
      .execute();
    logger.warn({ delivery: id, event: row.event_type, status: outcome.statusCode, error: outcome.error, next }, next ? "webhook attempt failed; will retry" : "webhook delivery gave up");
  }
}
