import type { Migrations } from "@transcribe/platform";

/** The billing service's schema: customers, subscriptions and the usage ledger. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
