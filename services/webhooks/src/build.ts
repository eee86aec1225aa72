import { addressPolicy, type Database, type HostResolver, type Logger, type ServiceParts } from "@transcribe/platform";
import type { Kysely } from "kysely";
import type { WebhooksConfig } from "./config.js";
import type { WebhooksDatabase } from "./db/migrations.js";
import { DeliveryWorker } from "./delivery/worker.js";
import { transcriptionEventsConsumer } from "./events/transcription-events.js";
import { webhooksRoutes } from "./rpc/webhooks-service.js";

/** Everything the webhooks service runs: its RPCs, the transcription event consumer and the delivery worker. */
export function buildWebhooks(deps: { config: WebhooksConfig; logger: Logger; database: Database<any>; resolver?: HostResolver }) {
  const { config, logger } = deps;
  const db = deps.database.db as Kysely<WebhooksDatabase>;
  const policy = addressPolicy(config.WEBHOOKS_ALLOW_CIDRS, "WEBHOOKS_ALLOW_CIDRS");
  const worker = new DeliveryWorker({
    db,
    logger,
    policy,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryBaseSeconds: config.WEBHOOK_RETRY_BASE_SECONDS,
    pollMs: config.WEBHOOK_POLL_MS,
  });
  const wake = () => worker.wake();
  const parts: ServiceParts = {
    routes: webhooksRoutes({
      db,
      policy,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
      maxEndpoints: config.WEBHOOK_MAX_ENDPOINTS_PER_USER,
      retryWindowSeconds: config.WEBHOOK_RETRY_WINDOW_SECONDS,
      wake,
    }),
    subscriptions: [{ topics: ["transcription.jobs"], handler: transcriptionEventsConsumer({ db, retryWindowSeconds: config.WEBHOOK_RETRY_WINDOW_SECONDS, wake }) }],
    background: [{ start: () => worker.start(), stop: () => worker.stop() }],
  };
  return { parts, worker };
}
