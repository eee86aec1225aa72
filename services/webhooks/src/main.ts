import { runService } from "@transcribe/platform";
import { buildWebhooks } from "./build.js";
import { webhooksConfigSchema } from "./config.js";
import { migrations } from "./db/migrations.js";

await runService({
  name: "webhooks",
  defaultPort: 7009,
  config: webhooksConfigSchema,
  migrations,
  build: ({ config, logger, database }) => buildWebhooks({ config, logger, database: database! }).parts,
});
