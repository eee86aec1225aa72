// The client session's four states (docs/requirements.md "States"), mapped from a query result by a pure
// function so the mapping is tested without rendering anything.
import type { z } from "zod";
import type { zGetSessionResponse } from "../api/generated/zod.gen";

/** GET /auth/get-session: null when nobody is signed in. */
export type SessionResponse = z.infer<typeof zGetSessionResponse>;

export type SessionUser = NonNullable<SessionResponse>["user"];

export type SessionState =
  | { status: "loading" }
  | { status: "error"; error: Error }
  | { status: "authenticated"; user: SessionUser }
  | { status: "unauthenticated" };

/** The fields of a TanStack Query result the mapping reads. */
export interface SessionQueryResult {
  isPending: boolean;
  data: SessionResponse | undefined;
  error: Error | null;
}

export function toSessionState({ isPending, data, error }: SessionQueryResult): SessionState {
  // A user we already have wins over a failed background refetch: a dropped connection
  // must not look like a sign-out. "error" is only an error with no user (docs/requirements.md "States").
  if (data?.user) return { status: "authenticated", user: data.user };
  if (error) return { status: "error", error };
  if (isPending) return { status: "loading" };
  return { status: "unauthenticated" };
}
