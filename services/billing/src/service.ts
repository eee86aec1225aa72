import type { Database, Logger, ServiceParts } from "@transcribe/platform";
import { BillingService } from "@transcribe/proto/billing/v1/billing";
import { paymentsEnabled, type BillingConfig } from "./config.js";
import type { BillingDB } from "./db/schema.js";
import { createStripe } from "./domain/stripe.js";
import { billingConsumer } from "./events/consumer.js";
import { billingServiceImpl } from "./rpc/billing-service.js";

/** The billing service's parts, shared by main.ts and the tests. */
export function buildBillingService(input: { config: BillingConfig; logger: Logger; database: Database<BillingDB> }): ServiceParts {
  const { config, logger, database } = input;
  const stripe = createStripe(config);
  if (!paymentsEnabled(config)) logger.info("payments are off (STRIPE_SECRET_KEY or STRIPE_PRICE_ID not set)");
  const impl = billingServiceImpl({ db: database.db, config, stripe, logger });
  return {
    routes: (router) => router.service(BillingService, impl),
    subscriptions: [{ topics: ["transcription.jobs", "auth.users"], handler: billingConsumer(database.db, logger) }],
  };
}
