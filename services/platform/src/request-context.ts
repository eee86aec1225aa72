import { AsyncLocalStorage } from "node:async_hooks";

export const REQUEST_ID_HEADER = "x-request-id";

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * The request id follows a call from the BFF through every service it touches, so one
 * id finds every log line of one user action.
 */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function enterRequestContext(requestId: string): void {
  storage.enterWith({ requestId });
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}
