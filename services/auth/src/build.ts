import type { Database, Logger, ServiceParts } from "@transcribe/platform";
import type { Kysely } from "kysely";
import { createAuth } from "./auth.js";
import { type AuthConfig, checkProviderPairs, resolveAuthSecret } from "./config.js";
import type { AuthDatabase } from "./db/schema.js";
import { analyticsConsumer, createAnalytics } from "./events/analytics.js";
import { userChangesRelay } from "./events/user-changes.js";
import { authRoutes } from "./http/auth-routes.js";
import { type AuthMailer, outboxMailer } from "./mailer.js";
import { authServiceRoutes } from "./rpc/auth-service.js";

export interface AuthServiceDeps {
  config: AuthConfig;
  logger: Logger;
  database: Database<any>;
  /** Tests may watch mail commands; the service writes them to its outbox. */
  mailer?: AuthMailer;
}

/**
 * Everything the auth service serves, built from its configuration and database:
 * /auth/* (better-auth), AuthService over Connect, the user change relay and the
 * analytics consumer. Throws ConfigError for a missing secret or half a provider.
 */
export function buildAuthService(deps: AuthServiceDeps) {
  const { config, logger, database } = deps;
  checkProviderPairs(config);
  const { secret, isDevelopmentDefault } = resolveAuthSecret(config);
  if (isDevelopmentDefault) {
    logger.warn("AUTH_SECRET is not set: using the fixed development-only secret (NODE_ENV=development only)");
  }
  const db = database.db as Kysely<AuthDatabase>;
  const auth = createAuth({ config, secret, db, mailer: deps.mailer ?? outboxMailer(db), logger });
  const analytics = createAnalytics({ key: config.POSTHOG_KEY, host: config.POSTHOG_HOST, logger });
  const relay = userChangesRelay({ db, logger });

  const parts: ServiceParts = {
    routes: authServiceRoutes({ auth, db }),
    configure: (app) => authRoutes(app, { auth, baseUrl: config.AUTH_BASE_URL }),
    background: [relay, { start: () => {}, stop: () => analytics.shutdown() }],
    subscriptions: [{ topics: ["auth.users"], handler: analyticsConsumer(database.db, analytics) }],
  };
  return { auth, parts, analytics };
}
