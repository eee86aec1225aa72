import { commonConfigSchema, ConfigError, loadConfigOrExit, runService } from "@transcribe/platform";
import { buildNotifier } from "./build.js";
import { checkSmtp, notifierConfigSchema } from "./config.js";
import { migrations } from "./db/migrations.js";

// A missing SMTP_URL is reported like any bad variable (exit 1), before touching the database.
try {
  checkSmtp(loadConfigOrExit("notifier", notifierConfigSchema.extend({ NODE_ENV: commonConfigSchema.shape.NODE_ENV })));
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`notifier: ${error.message}\n`);
  process.exit(1);
}

await runService({
  name: "notifier",
  defaultPort: 7008,
  config: notifierConfigSchema,
  migrations,
  build: ({ config, logger, database }) => buildNotifier({ config, logger, database: database! }).parts,
});
