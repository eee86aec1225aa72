import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AppError } from "@transcribe/platform";
import {
  ApiKeySchema,
  AuthService,
  CreateApiKeyResponseSchema,
  DeleteApiKeyResponseSchema,
  GetSessionResponseSchema,
  ListApiKeysResponseSchema,
  GetUserResponseSchema,
  SessionSchema,
  UserSchema,
} from "@transcribe/proto/auth/v1/auth";
import type { Kysely } from "kysely";
import { API_KEY_PREFIX, type Auth } from "../auth.js";
import type { ApiKeysTable, AuthDatabase } from "../db/schema.js";
import { apiKeyExpiresIn, keyFailure } from "../domain/api-keys.js";

interface UserLike {
  id: string;
  email: string;
  name?: string | null;
  image?: string | null;
  emailVerified: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** docs/requirements.md "Entities": name and image are optional; better-auth stores a missing name as "". */
export function toProtoUser(user: UserLike) {
  return create(UserSchema, {
    id: user.id,
    email: user.email,
    ...(user.name ? { name: user.name } : {}),
    ...(user.image ? { image: user.image } : {}),
    emailVerified: user.emailVerified,
    createdAt: timestampFromDate(new Date(user.createdAt)),
    updatedAt: timestampFromDate(new Date(user.updatedAt)),
  });
}

/** AuthService: what other services (the BFF first) ask of the auth service. Thin: better-auth and one query. */
export function authServiceRoutes(deps: { auth: Auth; db: Kysely<AuthDatabase> }) {
  return (router: ConnectRouter) => {
    router.service(AuthService, {
      async getSession(request) {
        // API keys never become better-auth sessions (that would open /auth/* to them):
        // they are verified here, which also counts them against their rate limit.
        if (request.bearerToken.startsWith(API_KEY_PREFIX)) {
          const result = await deps.auth.api.verifyApiKey({ body: { key: request.bearerToken } });
          if (!result.valid || !result.key) {
            const failure = keyFailure(result.error);
            return create(GetSessionResponseSchema, failure.retryAfterSeconds ? { retryAfterSeconds: failure.retryAfterSeconds } : {});
          }
          const row = await deps.db.selectFrom("users").selectAll().where("id", "=", result.key.referenceId).executeTakeFirst();
          if (!row) return create(GetSessionResponseSchema, {});
          return create(GetSessionResponseSchema, {
            user: toProtoUser({
              id: row.id,
              email: row.email,
              name: row.name,
              image: row.image,
              emailVerified: row.email_verified,
              createdAt: row.created_at,
              updatedAt: row.updated_at,
            }),
            apiKeyId: result.key.id,
          });
        }
        const headers = new Headers();
        if (request.cookie) headers.set("cookie", request.cookie);
        if (request.bearerToken) headers.set("authorization", `Bearer ${request.bearerToken}`);
        if (!headers.has("cookie") && !headers.has("authorization")) return create(GetSessionResponseSchema, {});
        const { headers: responseHeaders, response } = await deps.auth.api.getSession({ headers, returnHeaders: true });
        const setCookie = responseHeaders?.getSetCookie() ?? [];
        if (!response) return create(GetSessionResponseSchema, { setCookie });
        return create(GetSessionResponseSchema, {
          user: toProtoUser(response.user),
          session: create(SessionSchema, {
            id: response.session.id,
            expiresAt: timestampFromDate(new Date(response.session.expiresAt)),
            createdAt: timestampFromDate(new Date(response.session.createdAt)),
          }),
          setCookie,
        });
      },

      async getUser(request) {
        if (!request.userId) throw new AppError("invalid_argument", "user_id is required");
        const row = await deps.db.selectFrom("users").selectAll().where("id", "=", request.userId).executeTakeFirst();
        if (!row) throw new AppError("not_found", "User not found");
        return create(GetUserResponseSchema, {
          user: toProtoUser({
            id: row.id,
            email: row.email,
            name: row.name,
            image: row.image,
            emailVerified: row.email_verified,
            createdAt: row.created_at,
            updatedAt: row.updated_at,
          }),
        });
      },

      async createApiKey(request) {
        if (!request.userId) throw new AppError("invalid_argument", "user_id is required");
        const name = request.name.trim();
        if (!name || name.length > 100) throw new AppError("invalid_argument", "Name must be 1 to 100 characters");
        const expiresIn = request.expiresAt ? apiKeyExpiresIn(timestampDate(request.expiresAt), new Date()) : undefined;
        const created = await deps.auth.api.createApiKey({
          body: { name, userId: request.userId, ...(expiresIn !== undefined ? { expiresIn } : {}) },
        });
        const row = await deps.db.selectFrom("api_keys").selectAll().where("id", "=", created.id).executeTakeFirstOrThrow();
        return create(CreateApiKeyResponseSchema, { apiKey: toProtoApiKey(row), key: created.key });
      },

      async listApiKeys(request) {
        if (!request.userId) throw new AppError("invalid_argument", "user_id is required");
        const rows = await deps.db
          .selectFrom("api_keys")
          .selectAll()
          .where("user_id", "=", request.userId)
          .orderBy("created_at", "desc")
          .execute();
        return create(ListApiKeysResponseSchema, { apiKeys: rows.map(toProtoApiKey) });
      },

      async deleteApiKey(request) {
        if (!request.userId || !request.id) throw new AppError("invalid_argument", "user_id and id are required");
        // Deleted, not disabled: the next GetSession with it finds nothing.
        const deleted = await deps.db
          .deleteFrom("api_keys")
          .where("id", "=", request.id)
          .where("user_id", "=", request.userId)
          .executeTakeFirst();
        if (Number(deleted.numDeletedRows) === 0) throw new AppError("not_found", "API key not found");
        return create(DeleteApiKeyResponseSchema, {});
      },
    });
  };
}

function toProtoApiKey(row: ApiKeysTable) {
  return create(ApiKeySchema, {
    id: row.id,
    name: row.name ?? "",
    prefix: row.start ?? row.prefix ?? "",
    createdAt: timestampFromDate(new Date(row.created_at)),
    ...(row.last_request ? { lastUsedAt: timestampFromDate(new Date(row.last_request)) } : {}),
    ...(row.expires_at ? { expiresAt: timestampFromDate(new Date(row.expires_at)) } : {}),
  });
}
