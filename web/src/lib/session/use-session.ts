import { useQuery } from "@tanstack/react-query";
import { sessionQueryOptions } from "./query";
import { toSessionState, type SessionState } from "./state";

/** The client session in one of the spec's four states: loading, error, authenticated, unauthenticated. */
export function useSession(): SessionState {
  const { isPending, data, error } = useQuery(sessionQueryOptions);
  return toSessionState({ isPending, data, error });
}
