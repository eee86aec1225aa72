import { ConfigError, runService } from "@transcribe/platform";
import { exportConfigSchema, type ExportConfig } from "./config.js";
import { migrations } from "./db/migrations.js";
import { buildExportService } from "./service.js";

try {
  await runService({
    name: "export",
    defaultPort: 7006,
    config: exportConfigSchema,
    migrations,
    build: async ({ config, logger, database }) =>
      (await buildExportService({ config: config as ExportConfig, logger, database: database! })).parts,
  });
} catch (error) {
  // Fonts are checked while building; report them like any other configuration problem.
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`export: ${error.message}\n`);
  process.exit(1);
}
