import { createLogger, initTelemetry, loadConfigOrExit, stopOnSignals } from "@transcribe/platform";
import { buildBff } from "./app.js";
import { bffConfigSchema } from "./config.js";

const config = loadConfigOrExit("bff", bffConfigSchema);
const logger = createLogger("bff", config.LOG_LEVEL);
const telemetry = await initTelemetry({
  service: "bff",
  environment: config.NODE_ENV,
  otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  sentryDsn: config.SENTRY_DSN,
  logger,
});
const app = await buildBff(config, logger);
await app.listen({ host: config.HOST, port: config.PORT });
stopOnSignals(logger, config.SHUTDOWN_GRACE_MS, [() => app.close(), () => telemetry.shutdown()]);
