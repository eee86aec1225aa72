import { AsyncLocalStorage } from "node:async_hooks";

export const REQUEST_ID_HEADER = "x-request-id";

interface RequestContext {
  requestId: string;
  /** The signed-in user the request acts for (BFF: the session; services: the token's sub). */
  userId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * The request id follows a call from the BFF through every service it touches, so one
 * id finds every log line of one user action.
 */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The user the current request acts for; service calls carry it as a verified claim. */
export function currentUserId(): string | undefined {
  return storage.getStore()?.userId;
}

/** Records the user of the current request (after enterRequestContext). */
export function setRequestUser(userId: string | undefined): void {
  const store = storage.getStore();
  if (store) store.userId = userId;
}

export function enterRequestContext(requestId: string): void {
  storage.enterWith({ requestId });
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}
