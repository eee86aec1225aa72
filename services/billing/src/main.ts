import { runService } from "@transcribe/platform";
import { billingConfigSchema, type BillingConfig } from "./config.js";
import { migrations } from "./db/migrations.js";
import { buildBillingService } from "./service.js";

await runService({
  name: "billing",
  defaultPort: 7005,
  config: billingConfigSchema,
  migrations,
  build: ({ config, logger, database }) => buildBillingService({ config: config as BillingConfig, logger, database: database! }),
});
