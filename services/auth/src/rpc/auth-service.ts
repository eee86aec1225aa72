import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { AppError } from "@transcribe/platform";
import {
  AuthService,
  GetSessionResponseSchema,
  GetUserResponseSchema,
  SessionSchema,
  UserSchema,
} from "@transcribe/proto/auth/v1/auth";
import type { Kysely } from "kysely";
import type { Auth } from "../auth.js";
import type { AuthDatabase } from "../db/schema.js";

interface UserLike {
  id: string;
  email: string;
  name?: string | null;
  image?: string | null;
  emailVerified: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
}

/** Spec §3: name and image are optional; better-auth stores a missing name as "". */
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
    });
  };
}
