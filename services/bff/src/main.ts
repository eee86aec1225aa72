import { configureRpcClients, ConfigError, createLogger, initTelemetry, loadConfigOrExit, metricsPortConfigSchema, rpcConfigProblems, rpcConfigSchema, startMetricsServer, stopOnSignals } from "@transcribe/platform";
import { buildBff } from "./app.js";
import { bffConfigSchema } from "./config.js";

const config = loadConfigOrExit("bff", bffConfigSchema.extend(metricsPortConfigSchema.shape).extend(rpcConfigSchema.shape));
const rpcProblems = rpcConfigProblems(config, "bff", { serves: false });
if (rpcProblems.length > 0) {
  process.stderr.write(`bff: ${new ConfigError(rpcProblems).message}\n`);
  process.exit(1);
}
const logger = createLogger("bff", config.LOG_LEVEL);
// The BFF only calls services: its identity and protocol for every client.
configureRpcClients(config);
const telemetry = await initTelemetry({
  service: "bff",
  environment: config.NODE_ENV,
  otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  sentryDsn: config.SENTRY_DSN,
  metrics: config.METRICS_PORT !== undefined,
  logger,
});
const app = await buildBff(config, logger);
await app.listen({ host: config.HOST, port: config.PORT });
// Never on the public port: a scrape port of its own, which the deployment keeps internal.
const metrics = config.METRICS_PORT === undefined ? undefined : await startMetricsServer({ host: config.HOST, port: config.METRICS_PORT, logger });
stopOnSignals(logger, config.SHUTDOWN_GRACE_MS, [() => app.close(), async () => metrics?.close(), () => telemetry.shutdown()]);
