/**
 * Operator commands for an install (works without Stripe):
 *
 *   DATABASE_URL=postgres://…/billing npx tsx services/billing/src/admin.ts set-tier <userId> free|premium
 *
 * A tier set here is kept until the next admin change or a completed Stripe checkout;
 * Stripe subscription events do not override it.
 */
import { createDatabase, migrateToLatest, outboxMigrations } from "@transcribe/platform";
import { migrations } from "./db/migrations.js";
import type { BillingDB } from "./db/schema.js";
import { lockCustomer } from "./domain/usage.js";

const usage = "usage: admin.ts set-tier <userId> free|premium";

async function main(argv: string[]): Promise<number> {
  const [command, userId, tier] = argv;
  if (command !== "set-tier" || !userId || (tier !== "free" && tier !== "premium")) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("DATABASE_URL (the billing database) is required\n");
    return 2;
  }
  const database = createDatabase<BillingDB>(url, { applicationName: "billing-admin", max: 1 });
  try {
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    await database.db.transaction().execute(async (trx) => {
      await lockCustomer(trx, userId);
      await trx.updateTable("billing_customers").set({ tier, tier_source: "admin", updated_at: new Date() }).where("user_id", "=", userId).execute();
    });
    process.stdout.write(`${userId}: tier ${tier}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
