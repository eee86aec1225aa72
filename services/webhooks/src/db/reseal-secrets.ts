import type { Logger } from "@transcribe/platform";
import { type Kysely, sql } from "kysely";
import type { SecretBox } from "../secret-box.js";
import type { WebhooksDatabase } from "./migrations.js";

/**
 * Moves every endpoint secret to the current key: plaintext rows written before secrets
 * were encrypted (or by a replica of that version during a rolling update), and rows
 * sealed under a key that is no longer the first of WEBHOOK_SECRET_KEYS. Runs on start, in
 * batches under SKIP LOCKED so replicas starting together share the work.
 */
export async function resealSecrets(db: Kysely<WebhooksDatabase>, box: SecretBox, logger: Logger): Promise<number> {
  const current = `v1:${box.currentKeyId}:%`;
  let moved = 0;
  for (;;) {
    const batch = await db.transaction().execute(async (trx) => {
      const rows = await sql<{ id: string; secret: string }>`
        select id, secret from webhook_endpoints where secret not like ${current} limit 200 for update skip locked`.execute(trx);
      for (const row of rows.rows) {
        await trx.updateTable("webhook_endpoints").set({ secret: box.seal(box.open(row.secret, row.id), row.id) }).where("id", "=", row.id).execute();
      }
      return rows.rows.length;
    });
    moved += batch;
    if (batch === 0) break;
  }
  if (moved > 0) logger.info({ endpoints: moved, key: box.currentKeyId }, "webhook secrets sealed under the current key");
  return moved;
}
