import { enqueueEvents, type Logger, newEvent } from "@transcribe/platform";
import { TrackUserSignupSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Kysely } from "kysely";
import type { AuthDatabase, UserChangesTable } from "../db/schema.js";

type ChangeRow = Pick<UserChangesTable, "kind" | "user_id"> & { event_id: string; occurred_at: Date };

/** A user change (written by the users trigger) as the event other services receive. */
export function userChangeEvent(row: ChangeRow) {
  const fields = { id: row.event_id, timestamp: timestampFromDate(row.occurred_at), userId: row.user_id };
  return row.kind === "created" ? newEvent(TrackUserSignupSchema, fields) : newEvent(UserDeletedSchema, fields);
}

/**
 * Moves user change rows into the outbox, in one transaction: the rows leave the change
 * log exactly when their events enter the outbox. `skip locked` lets replicas drain
 * side by side; the event id comes from the row, so the events are the same however
 * often this runs.
 */
export async function drainUserChanges(db: Kysely<AuthDatabase>, batchSize = 100): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("user_changes")
      .select(["seq", "event_id", "kind", "user_id", "occurred_at"])
      .orderBy("seq")
      .limit(batchSize)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return 0;
    await enqueueEvents(trx, rows.map(userChangeEvent));
    await trx
      .deleteFrom("user_changes")
      .where(
        "seq",
        "in",
        rows.map((r) => r.seq),
      )
      .execute();
    return rows.length;
  });
}

/** Background job: drains the change log every `intervalMs` (and at once after a full batch). */
export function userChangesRelay(options: { db: Kysely<AuthDatabase>; logger: Logger; intervalMs?: number }) {
  const intervalMs = options.intervalMs ?? 1_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const tick = async () => {
    let moved = 0;
    try {
      moved = await drainUserChanges(options.db);
    } catch (error) {
      options.logger.warn({ err: error }, "user changes: could not move to the outbox; will retry");
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), moved === 100 ? 0 : intervalMs);
  };

  return {
    start() {
      stopped = false;
      running = tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      // What was committed just before shutdown still leaves now.
      await drainUserChanges(options.db).catch(() => 0);
    },
  };
}
