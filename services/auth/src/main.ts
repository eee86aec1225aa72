import { commonConfigSchema, ConfigError, loadConfigOrExit, runService } from "@transcribe/platform";
import { buildAuthService } from "./build.js";
import { authConfigSchema, checkProviderPairs, resolveAuthSecret } from "./config.js";
import { migrations } from "./db/migrations.js";

/** Same contract as a bad variable: name every problem and exit 1, before touching the database. */
function exitOnConfigError(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`auth: ${error.message}\n`);
    process.exit(1);
  }
}

const early = loadConfigOrExit("auth", authConfigSchema.extend({ NODE_ENV: commonConfigSchema.shape.NODE_ENV }));
exitOnConfigError(() => {
  checkProviderPairs(early);
  resolveAuthSecret(early);
});

await runService({
  name: "auth",
  defaultPort: 7001,
  config: authConfigSchema,
  migrations,
  build: ({ config, logger, database }) => buildAuthService({ config, logger, database: database! }).parts,
});
