import { readFileSync } from "node:fs";
import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import { observeRpcCalls } from "../observability/rpc.js";
import { currentRequestId, currentUserId, REQUEST_ID_HEADER } from "../request-context.js";
import { AUTHORIZATION_HEADER, type TokenSigner } from "./credentials.js";

/**
 * How our services talk to each other (decision 0023): Connect over HTTP/2 by default (the
 * fastest in the API benchmark, docs/benchmarks.md), gRPC over HTTP/2, or Connect over
 * HTTP/1.1 (the pre-0023 wire, kept for comparison). Every port serves all of them.
 */
export const rpcProtocols = ["connect", "grpc", "connect-http1"] as const;
export type RpcProtocol = (typeof rpcProtocols)[number];
export const DEFAULT_RPC_PROTOCOL: RpcProtocol = "connect";

export interface ServiceClientOptions {
  /** Deadline for every call unless the call sets its own (sent as grpc-timeout / connect-timeout-ms). */
  timeoutMs?: number;
  /** Overrides the process-wide protocol (configureServiceClients). */
  protocol?: RpcProtocol;
  /** Overrides the process-wide signer: the identity the calls are made as. */
  signer?: TokenSigner | null;
}

interface ClientSettings {
  protocol: RpcProtocol;
  signer: TokenSigner | undefined;
  /** PEM bundle to trust for https:// upstreams (RPC_TLS_CA_FILE), besides the system's. */
  caFile: string | undefined;
}

const settings: ClientSettings = {
  protocol: DEFAULT_RPC_PROTOCOL,
  signer: undefined,
  caFile: undefined,
};

/**
 * Set once per process (runService does it from the configuration): the protocol, the
 * identity calls are signed as, and the CA for TLS upstreams.
 */
export function configureServiceClients(next: Partial<ClientSettings>): void {
  Object.assign(settings, next);
  transports.clear();
  for (const manager of sessions.values()) manager.abort();
  sessions.clear();
}

const propagateRequestId: Interceptor = (next) => async (req) => {
  const requestId = currentRequestId();
  if (requestId && !req.header.has(REQUEST_ID_HEADER)) req.header.set(REQUEST_ID_HEADER, requestId);
  return next(req);
};

function signCalls(signer: TokenSigner): Interceptor {
  return (next) => async (req) => {
    if (!req.header.has(AUTHORIZATION_HEADER)) {
      req.header.set(AUTHORIZATION_HEADER, `Bearer ${await signer.token(req.service.typeName, currentUserId())}`);
    }
    return next(req);
  };
}

/**
 * One HTTP/2 session per upstream, shared by every client and transport of that upstream
 * in the process: every call is multiplexed on it, idle sessions are pinged so a dead
 * peer (a pod gone without a FIN) is noticed in seconds, and a dropped one is reopened
 * on the next call.
 */
const sessions = new Map<string, Http2SessionManager>();

function sessionFor(baseUrl: string): Http2SessionManager {
  const origin = new URL(baseUrl).origin;
  let manager = sessions.get(origin);
  if (!manager) {
    const nodeOptions = origin.startsWith("https:") && settings.caFile ? { ca: readFileSync(settings.caFile) } : {};
    manager = new Http2SessionManager(
      origin,
      { pingIntervalMs: 15_000, pingTimeoutMs: 5_000, idleConnectionTimeoutMs: 5 * 60_000 },
      nodeOptions,
    );
    sessions.set(origin, manager);
  }
  return manager;
}

const transports = new Map<string, Transport>();

function transportFor(baseUrl: string, protocol: RpcProtocol, signer: TokenSigner | undefined, timeoutMs: number): Transport {
  const key = `${protocol} ${baseUrl} ${signer?.identity ?? "-"} ${timeoutMs}`;
  const existing = transports.get(key);
  if (existing) return existing;
  const interceptors = [observeRpcCalls, propagateRequestId, ...(signer ? [signCalls(signer)] : [])];
  // No compression between services: they are next to each other (loopback, or one
  // cluster network), where gzipping a transcript costs more CPU on both ends than the
  // bytes it saves take to send (decision 0027, docs/benchmarks.md §4).
  const common = { baseUrl, defaultTimeoutMs: timeoutMs, interceptors, acceptCompression: [] };
  const transport =
    protocol === "grpc"
      ? createGrpcTransport({ ...common, sessionManager: sessionFor(baseUrl) })
      : protocol === "connect"
        ? createConnectTransport({ ...common, httpVersion: "2", sessionManager: sessionFor(baseUrl), useBinaryFormat: true })
        : createConnectTransport({
            ...common,
            httpVersion: "1.1",
            useBinaryFormat: true,
            ...(baseUrl.startsWith("https:") && settings.caFile ? { nodeOptions: { ca: readFileSync(settings.caFile) } } : {}),
          });
  transports.set(key, transport);
  return transport;
}

/** A client for another service: a deadline on every call, signed, traced and timed. */
export function createServiceClient<T extends DescService>(
  service: T,
  baseUrl: string,
  options: ServiceClientOptions = {},
): Client<T> {
  const signer = options.signer === null ? undefined : (options.signer ?? settings.signer);
  const transport = transportFor(baseUrl, options.protocol ?? settings.protocol, signer, options.timeoutMs ?? 10_000);
  return createClient(service, transport);
}
