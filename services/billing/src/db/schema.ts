import type { PlatformEventTables } from "@transcribe/platform";
import type { ColumnType, Generated, Kysely, Transaction } from "kysely";

type Tier = "free" | "premium";

export interface CustomersTable {
  user_id: string;
  email: string | null;
  stripe_customer_id: string | null;
  tier: ColumnType<Tier, Tier | undefined, Tier>;
  tier_source: ColumnType<"stripe" | "admin", "stripe" | "admin" | undefined, "stripe" | "admin">;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SubscriptionsTable {
  stripe_subscription_id: string;
  user_id: string;
  stripe_customer_id: string;
  status: string;
  price_id: string | null;
  cancel_at_period_end: Generated<boolean>;
  current_period_end: Date | null;
  updated_at: Generated<Date>;
}

export interface UsageTable {
  job_id: string;
  user_id: string;
  state: "reserved" | "settled";
  minutes: number;
  audio_seconds: Generated<number>;
  created_at: Generated<Date>;
  settled_at: Date | null;
}

export interface StripeEventsTable {
  event_id: string;
  type: string;
  received_at: Generated<Date>;
}

export interface BillingDB extends PlatformEventTables {
  billing_customers: CustomersTable;
  billing_subscriptions: SubscriptionsTable;
  billing_usage: UsageTable;
  billing_stripe_events: StripeEventsTable;
}

export type Db = Kysely<BillingDB>;
export type Trx = Transaction<BillingDB>;
export type { Tier };
