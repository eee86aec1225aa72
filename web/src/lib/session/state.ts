// The client session's four states (docs/requirements.md "States"), mapped from a query result by a pure
// function so the mapping is tested without rendering anything.
import type { SessionResponse } from "../api/schemas";

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
