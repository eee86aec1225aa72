import type { ConnectRouter } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { commonConfigSchema, env } from "./config.js";
import { ConfigError } from "./errors.js";
import { createDatabase, type Database } from "./db/database.js";
import { migrateToLatest, type Migrations } from "./db/migrations.js";
import type { EventBus, EventHandler } from "./events/bus.js";
import type { Topic } from "./events/catalog.js";
import { outboxMigrations } from "./events/outbox.js";
import { createEventBus, eventBusConfigProblems, eventBusConfigSchema } from "./events/bus-config.js";
import { createOutboxRelay, type OutboxRelay } from "./events/relay.js";
import { createLogger, type Logger } from "./logger.js";
import { loadConfigOrExit, stopOnSignals } from "./process.js";
import { applyRpcConfig, rpcConfigProblems, rpcConfigSchema } from "./rpc/config.js";
import { type ReadinessCheck, startServiceServer } from "./rpc/server.js";
import { initTelemetry, type Telemetry } from "./telemetry.js";

export interface ServiceContext<C> {
  config: C;
  logger: Logger;
  telemetry: Telemetry;
  /** The service's own database, migrated to the latest version; absent for services without one. */
  database: Database<any> | undefined;
  /** The event bus; the service's outbox is relayed to it. Present whenever database is. */
  bus: EventBus | undefined;
}

/** A consumer of the service: its handler runs once per event (see consume()). */
export interface Subscription {
  topics: readonly Topic[];
  handler: EventHandler;
}

export interface ServiceParts {
  routes?: (router: ConnectRouter) => void;
  readiness?: ReadinessCheck[];
  configure?: (app: FastifyInstance) => Promise<void> | void;
  /** Background work (workers, schedulers) started after the server listens. */
  background?: Array<{ start(): Promise<void> | void; stop(): Promise<void> }>;
  /** Event subscriptions, under the service's name as the consumer (see eventTopology). */
  subscriptions?: Subscription[];
}

export interface ServiceDefinition<S extends z.ZodObject> {
  name: string;
  defaultPort: number;
  /** The service's own variables; common ones (NODE_ENV, LOG_LEVEL, HOST, ...) are added. */
  config: S;
  /** When set, DATABASE_URL is required and these migrations run before serving. */
  migrations?: Migrations;
  build(context: ServiceContext<z.infer<S> & ServiceBaseConfig>): Promise<ServiceParts> | ServiceParts;
}

const serviceBaseSchema = commonConfigSchema.extend(rpcConfigSchema.shape).extend({
  PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** GET /metrics on the service's port (an internal one; the BFF has METRICS_PORT instead). */
  METRICS_ENABLED: env.boolean(true),
});

/** EVENT_BUS=embedded|kafka and each adapter's variables (events/bus-config.ts). */
const eventBusSchema = eventBusConfigSchema;
type ServiceBaseConfig = z.infer<typeof serviceBaseSchema>;

/**
 * The whole life of a service process: configuration (exits 1 naming every bad
 * variable), telemetry, database and migrations, the Connect server, background work,
 * and a graceful stop on SIGTERM/SIGINT. A service's main.ts is only its definition.
 */
export async function runService<S extends z.ZodObject>(definition: ServiceDefinition<S>): Promise<void> {
  const databaseSchema = definition.migrations
    ? eventBusSchema.extend({ DATABASE_URL: env.postgresUrl() })
    : z.object({});
  const config = loadConfigOrExit(
    definition.name,
    serviceBaseSchema.extend(databaseSchema.shape).extend(definition.config.shape),
  ) as z.infer<S> & ServiceBaseConfig & Partial<z.infer<typeof eventBusSchema>> & { DATABASE_URL?: string };
  const busProblems = [
    ...(definition.migrations ? eventBusConfigProblems(config as z.infer<typeof eventBusSchema>) : []),
    ...rpcConfigProblems(config, definition.name),
  ];
  if (busProblems.length > 0) {
    process.stderr.write(`${definition.name}: ${new ConfigError(busProblems).message}\n`);
    process.exit(1);
  }

  const logger = createLogger(definition.name, config.LOG_LEVEL);
  const telemetry = await initTelemetry({
    service: definition.name,
    environment: config.NODE_ENV,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    sentryDsn: config.SENTRY_DSN,
    metrics: config.METRICS_ENABLED,
    logger,
  });
  const rpc = applyRpcConfig(config, logger);
  process.on("unhandledRejection", (reason) => {
    logger.error({ err: reason }, "unhandled rejection");
    telemetry.captureException(reason);
  });

  let database: Database<any> | undefined;
  let bus: EventBus | undefined;
  let relay: OutboxRelay | undefined;
  if (definition.migrations && config.DATABASE_URL) {
    database = createDatabase(config.DATABASE_URL, { applicationName: definition.name });
    const applied = await migrateToLatest(database.db, { ...outboxMigrations, ...definition.migrations });
    if (applied.length > 0) logger.info({ applied }, "migrations applied");
    bus = createEventBus(config as z.infer<typeof eventBusSchema>, definition.name, logger);
    try {
      await bus.start();
    } catch (error) {
      // One readable line (which bus, where, what to do); the supervisor starts us again.
      logger.fatal({ err: error, eventBus: config.EVENT_BUS }, `event bus unavailable: ${(error as Error).message}`);
      process.exit(1);
    }
    relay = createOutboxRelay({ database, bus, logger });
  }

  const parts = await definition.build({ config, logger, telemetry, database, bus });
  const readiness: ReadinessCheck[] = [
    ...(database ? [{ name: "postgres", check: () => database!.ping() }] : []),
    ...(bus ? [{ name: "event-bus", check: () => bus!.ping() }] : []),
    ...(parts.readiness ?? []),
  ];
  const server = await startServiceServer({
    name: definition.name,
    host: config.HOST,
    port: config.PORT ?? definition.defaultPort,
    logger,
    readiness,
    ...(parts.routes ? { routes: parts.routes } : {}),
    ...(parts.configure ? { configure: parts.configure } : {}),
    shutdownTimeoutMs: config.SHUTDOWN_GRACE_MS,
    metrics: config.METRICS_ENABLED,
    ...rpc,
  });
  await relay?.start();
  for (const subscription of parts.subscriptions ?? []) {
    if (!bus) throw new Error(`${definition.name} subscribes to events but has no database for processed ids`);
    await bus.subscribe(definition.name, subscription.topics, subscription.handler);
  }
  for (const job of parts.background ?? []) await job.start();

  // Order matters: stop taking work, finish background work, publish what the outbox
  // still holds, stop consuming, then close the pool everything above used.
  stopOnSignals(logger, config.SHUTDOWN_GRACE_MS, [
    () => server.close(),
    ...[...(parts.background ?? [])].reverse().map((job) => () => job.stop()),
    async () => relay?.stop(),
    async () => bus?.stop(),
    async () => database?.close(),
    () => telemetry.shutdown(),
  ]);
}
