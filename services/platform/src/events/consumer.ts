import { sql, type Kysely, type Transaction } from "kysely";
import type { EventHandler } from "./bus.js";
import type { EventMessage } from "./catalog.js";
import { decodeEvent, type EventEnvelope } from "./envelope.js";

export type ConsumerHandler<DB> = (trx: Transaction<DB>, event: EventMessage, envelope: EventEnvelope) => Promise<void>;

/**
 * Makes a handler's effects happen once per event, however often the bus delivers it.
 * The processed-event row and the handler's writes share one transaction: if the
 * handler fails or the process dies, both roll back and the redelivery runs it again;
 * once committed, a redelivery finds the row and does nothing. A second delivery that
 * arrives while the first is still running waits on the first's uncommitted row, then
 * sees the conflict and skips.
 *
 * Only writes through `trx` are covered. Side effects outside the database (mail, HTTP)
 * still happen at least once; give them their own idempotency key (the event id).
 */
export function consume<DB>(db: Kysely<DB>, consumerName: string, handler: ConsumerHandler<DB>): EventHandler {
  return async (envelope) => {
    const event = decodeEvent(envelope);
    await db.transaction().execute(async (trx) => {
      const claimed = await sql`
        insert into platform_processed_events (consumer, event_id)
        values (${consumerName}, ${envelope.id})
        on conflict do nothing
        returning event_id`.execute(trx);
      if (claimed.rows.length === 0) return;
      await handler(trx, event, envelope);
    });
  };
}
