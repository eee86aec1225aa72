import { sql } from "kysely";
import type { Db, Tier, Trx } from "../db/schema.js";

/** Usage is counted in whole minutes of audio per file, rounded up (a 61 s file is 2 minutes). */
export function minutesOf(audioSeconds: number): number {
  if (!Number.isFinite(audioSeconds) || audioSeconds <= 0) return 0;
  return Math.ceil(audioSeconds / 60);
}

export interface UsagePeriod {
  fileCount: number;
  totalMinutes: number;
}

/** Creates the customer row when missing and returns it locked for this transaction. */
export async function lockCustomer(trx: Trx, userId: string) {
  await trx.insertInto("billing_customers").values({ user_id: userId }).onConflict((oc) => oc.column("user_id").doNothing()).execute();
  return trx.selectFrom("billing_customers").selectAll().where("user_id", "=", userId).forUpdate().executeTakeFirstOrThrow();
}

export async function tierOf(db: Db | Trx, userId: string): Promise<Tier> {
  const row = await db.selectFrom("billing_customers").select("tier").where("user_id", "=", userId).executeTakeFirst();
  return row?.tier ?? "free";
}

/** Settled minutes and files: all time, and since `since` when given. */
export async function settledUsage(db: Db | Trx, userId: string, since?: Date): Promise<UsagePeriod> {
  let query = db
    .selectFrom("billing_usage")
    .select([sql<string>`count(*)`.as("files"), sql<string>`coalesce(sum(minutes), 0)`.as("minutes")])
    .where("user_id", "=", userId)
    .where("state", "=", "settled");
  if (since) query = query.where("settled_at", ">=", since);
  const row = await query.executeTakeFirstOrThrow();
  return { fileCount: Number(row.files), totalMinutes: Number(row.minutes) };
}

/** Minutes held by live reservations (not settled, not older than the TTL), other than `exceptJob`. */
export async function reservedMinutes(db: Db | Trx, userId: string, ttlHours: number, exceptJob?: string): Promise<number> {
  let query = db
    .selectFrom("billing_usage")
    .select(sql<string>`coalesce(sum(minutes), 0)`.as("minutes"))
    .where("user_id", "=", userId)
    .where("state", "=", "reserved")
    .where("created_at", ">", sql<Date>`now() - make_interval(hours => ${ttlHours})`);
  if (exceptJob) query = query.where("job_id", "<>", exceptJob);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.minutes);
}

/** The first instant of the calendar month (UTC) that contains `now`. */
export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export interface QuotaAnswer {
  allowed: boolean;
  used: number;
  limit: number;
  remaining: number;
  unlimited: boolean;
  requested: number;
}

/**
 * The quota decision. The customer row is locked first, so checks of one user are
 * serialized: a second concurrent check sees the first one's reservation.
 */
export async function checkQuota(
  db: Db,
  input: { userId: string; audioSeconds: number; jobId?: string | undefined },
  limits: { freeMinutes: number; reservationTtlHours: number },
): Promise<QuotaAnswer> {
  const requested = Math.max(minutesOf(input.audioSeconds), 1);
  return db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, input.userId);
    const used = (await settledUsage(trx, input.userId)).totalMinutes;
    const existing = input.jobId
      ? await trx.selectFrom("billing_usage").selectAll().where("job_id", "=", input.jobId).executeTakeFirst()
      : undefined;
    if (existing && existing.user_id !== input.userId) {
      // A job id is a uuid made by transcription; another user's id here is a caller bug.
      return { allowed: false, used, limit: limits.freeMinutes, remaining: 0, unlimited: false, requested };
    }
    const reserved = await reservedMinutes(trx, input.userId, limits.reservationTtlHours, input.jobId);
    const remaining = Math.max(limits.freeMinutes - used - reserved, 0);
    const unlimited = customer.tier === "premium";
    // The same job asking again (a retried call) keeps its reservation.
    const allowed = unlimited || existing !== undefined || requested <= remaining;
    if (allowed && input.jobId && !existing) {
      await trx
        .insertInto("billing_usage")
        .values({ job_id: input.jobId, user_id: input.userId, state: "reserved", minutes: requested, audio_seconds: input.audioSeconds, settled_at: null })
        .execute();
    }
    return { allowed, used, limit: limits.freeMinutes, remaining, unlimited, requested };
  });
}

/** A successful job: its reservation (or a new row) becomes settled usage, once. */
export async function settleJob(trx: Trx, input: { jobId: string; userId: string; audioSeconds: number; at: Date }): Promise<void> {
  const existing = await trx.selectFrom("billing_usage").selectAll().where("job_id", "=", input.jobId).forUpdate().executeTakeFirst();
  if (existing?.state === "settled") return;
  // The reported duration decides; a job that reports none keeps what it reserved.
  const minutes = input.audioSeconds > 0 ? minutesOf(input.audioSeconds) : (existing?.minutes ?? 0);
  if (existing) {
    await trx
      .updateTable("billing_usage")
      .set({ state: "settled", minutes, audio_seconds: input.audioSeconds, settled_at: input.at })
      .where("job_id", "=", input.jobId)
      .execute();
  } else {
    await trx
      .insertInto("billing_usage")
      .values({ job_id: input.jobId, user_id: input.userId, state: "settled", minutes, audio_seconds: input.audioSeconds, settled_at: input.at })
      .execute();
  }
}

/** A failed job uses nothing: its reservation is released. */
export async function releaseJob(trx: Trx, jobId: string): Promise<void> {
  await trx.deleteFrom("billing_usage").where("job_id", "=", jobId).where("state", "=", "reserved").execute();
}
