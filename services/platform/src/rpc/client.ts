import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import { observeRpcCalls } from "../observability/rpc.js";
import { currentRequestId, REQUEST_ID_HEADER } from "../request-context.js";

export interface ServiceClientOptions {
  /** Deadline for every call unless the call sets its own. */
  timeoutMs?: number;
}

const propagateRequestId: Interceptor = (next) => async (req) => {
  const requestId = currentRequestId();
  if (requestId && !req.header.has(REQUEST_ID_HEADER)) req.header.set(REQUEST_ID_HEADER, requestId);
  return next(req);
};

/** A Connect client for another service, with a deadline on every call, traced and timed. */
export function createServiceClient<T extends DescService>(
  service: T,
  baseUrl: string,
  options: ServiceClientOptions = {},
): Client<T> {
  const transport = createConnectTransport({
    baseUrl,
    httpVersion: "1.1",
    useBinaryFormat: true,
    defaultTimeoutMs: options.timeoutMs ?? 10_000,
    interceptors: [observeRpcCalls, propagateRequestId],
  });
  return createClient(service, transport);
}
