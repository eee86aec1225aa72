import type { Generated } from "kysely";

/**
 * better-auth's models under our names: plural snake_case tables and columns, like every
 * other table of the product. better-auth is told these names (see authTableNames in
 * auth.ts); our migrations create exactly them, and a test checks that better-auth's own
 * migration planner finds nothing missing.
 */
export const authTableNames = {
  user: {
    modelName: "users",
    fields: { emailVerified: "email_verified", createdAt: "created_at", updatedAt: "updated_at" },
  },
  session: {
    modelName: "sessions",
    fields: {
      expiresAt: "expires_at",
      createdAt: "created_at",
      updatedAt: "updated_at",
      ipAddress: "ip_address",
      userAgent: "user_agent",
      userId: "user_id",
    },
  },
  account: {
    modelName: "accounts",
    fields: {
      accountId: "account_id",
      providerId: "provider_id",
      userId: "user_id",
      accessToken: "access_token",
      refreshToken: "refresh_token",
      idToken: "id_token",
      accessTokenExpiresAt: "access_token_expires_at",
      refreshTokenExpiresAt: "refresh_token_expires_at",
      createdAt: "created_at",
      updatedAt: "updated_at",
    },
  },
  verification: {
    modelName: "verifications",
    fields: { expiresAt: "expires_at", createdAt: "created_at", updatedAt: "updated_at" },
  },
  rateLimit: {
    modelName: "rate_limits",
    fields: { lastRequest: "last_request" },
  },
  /** @better-auth/api-key's model (its schema option takes the apikey entry). */
  apiKey: {
    apikey: {
      modelName: "api_keys",
      fields: {
        configId: "config_id",
        referenceId: "user_id",
        refillInterval: "refill_interval",
        refillAmount: "refill_amount",
        lastRefillAt: "last_refill_at",
        rateLimitEnabled: "rate_limit_enabled",
        rateLimitTimeWindow: "rate_limit_time_window",
        rateLimitMax: "rate_limit_max",
        requestCount: "request_count",
        lastRequest: "last_request",
        expiresAt: "expires_at",
        createdAt: "created_at",
        updatedAt: "updated_at",
      },
    },
  },
} as const;

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  email_verified: boolean;
  image: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SessionsTable {
  id: string;
  expires_at: Date;
  token: string;
  created_at: Date;
  updated_at: Date;
  ip_address: string | null;
  user_agent: string | null;
  user_id: string;
}

export interface AccountsTable {
  id: string;
  account_id: string;
  provider_id: string;
  user_id: string;
  access_token: string | null;
  refresh_token: string | null;
  id_token: string | null;
  access_token_expires_at: Date | null;
  refresh_token_expires_at: Date | null;
  scope: string | null;
  password: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface VerificationsTable {
  id: string;
  identifier: string;
  value: string;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** Written by triggers on users (see migrations); drained into the outbox by user-changes.ts. */
export interface UserChangesTable {
  seq: Generated<string>;
  event_id: Generated<string>;
  kind: "created" | "deleted";
  user_id: string;
  occurred_at: Generated<Date>;
}

/** Written by @better-auth/api-key; read here for listing and revoking. `key` is the SHA-256 of the secret. */
export interface ApiKeysTable {
  id: string;
  config_id: string;
  name: string | null;
  start: string | null;
  user_id: string;
  prefix: string | null;
  key: string;
  last_request: Date | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AuthDatabase {
  api_keys: ApiKeysTable;
  users: UsersTable;
  sessions: SessionsTable;
  accounts: AccountsTable;
  verifications: VerificationsTable;
  user_changes: UserChangesTable;
}
