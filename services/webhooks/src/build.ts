import { randomBytes } from "node:crypto";
import { addressPolicy, type Database, type HostResolver, type Logger, type ServiceParts } from "@transcribe/platform";
import type { Kysely } from "kysely";
import type { WebhooksConfig } from "./config.js";
import type { WebhooksDatabase } from "./db/migrations.js";
import { DeliveryWorker } from "./delivery/worker.js";
import { transcriptionEventsConsumer } from "./events/transcription-events.js";
import { webhooksRoutes } from "./rpc/webhooks-service.js";
import { resealSecrets } from "./db/reseal-secrets.js";
import { SecretBox } from "./secret-box.js";

/** Everything the webhooks service runs: its RPCs, the transcription event consumer and the delivery worker. */
export function buildWebhooks(deps: { config: WebhooksConfig; logger: Logger; database: Database<any>; resolver?: HostResolver }) {
  const { config, logger } = deps;
  const db = deps.database.db as Kysely<WebhooksDatabase>;
  const policy = addressPolicy(config.WEBHOOKS_ALLOW_CIDRS, "WEBHOOKS_ALLOW_CIDRS");
  const box = new SecretBox(secretKeys(config, logger));
  const worker = new DeliveryWorker({
    db,
    logger,
    policy,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryBaseSeconds: config.WEBHOOK_RETRY_BASE_SECONDS,
    pollMs: config.WEBHOOK_POLL_MS,
    box,
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
      box,
    }),
    subscriptions: [{ topics: ["transcription.jobs"], handler: transcriptionEventsConsumer({ db, retryWindowSeconds: config.WEBHOOK_RETRY_WINDOW_SECONDS, wake }) }],
    background: [
      {
        start: async () => {
          await resealSecrets(db, box, logger);
          worker.start();
        },
        stop: () => worker.stop(),
      },
    ],
  };
  return { parts, worker };
}

/**
 * The keys that seal endpoint secrets. Production needs WEBHOOK_SECRET_KEYS (the embedded
 * launcher and the chart provide it); elsewhere a key for this process only is made, so a
 * test or a bare `tsx` start works, and secrets it sealed cannot be opened after a restart.
 */
function secretKeys(config: WebhooksConfig, logger: Logger) {
  if (config.WEBHOOK_SECRET_KEYS.length > 0) return config.WEBHOOK_SECRET_KEYS;
  if (config.NODE_ENV === "production") throw new Error("WEBHOOK_SECRET_KEYS is required in production (docs/deploy.md)");
  logger.warn("WEBHOOK_SECRET_KEYS is not set: endpoint secrets are sealed with a key of this process only");
  return [{ id: "ephemeral", key: randomBytes(32) }];
}
