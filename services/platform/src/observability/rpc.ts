import { context, propagation, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { rpcClientDuration, rpcServerDuration } from "./metrics.js";
import { SpanKind, withSpan } from "./tracing.js";

const headerSetter = {
  set(carrier: Headers, key: string, value: string) {
    carrier.set(key, value);
  },
};

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

/** Connect's own spelling of a result code ("not_found"); "ok" on success. */
function resultCode(error: unknown): string {
  return codeToString(ConnectError.from(error).code);
}

function rpcAttributes(service: string, method: string) {
  return { "rpc.system": "connect_rpc", "rpc.service": service, "rpc.method": method };
}

/**
 * Client side of every Connect call: a CLIENT span named service/method whose context
 * travels in the request headers (traceparent), so the callee's spans join the caller's
 * trace even where the http module is not instrumented; and rpc_client_duration_seconds.
 */
export const observeRpcCalls: Interceptor = (next) => async (req) => {
  const labels = { rpc_service: req.service.typeName, rpc_method: req.method.name };
  return withSpan(
    `${labels.rpc_service}/${labels.rpc_method}`,
    { kind: SpanKind.CLIENT, attributes: rpcAttributes(labels.rpc_service, labels.rpc_method) },
    async () => {
      propagation.inject(context.active(), req.header, headerSetter);
      const stop = rpcClientDuration.startTimer(labels);
      try {
        const response = await next(req);
        stop({ rpc_code: "ok" });
        return response;
      } catch (error) {
        stop({ rpc_code: resultCode(error) });
        throw error;
      }
    },
  );
};

/**
 * Server side: rpc_server_duration_seconds, and the request's span named after the RPC.
 * That span is normally the http instrumentation's, continuing the caller's traceparent;
 * where http is not instrumented (no preload) one is started here from the header.
 * Goes before the interceptor that maps errors, so that it sees the code the caller gets.
 */
export const observeRpcHandling: Interceptor = (next) => async (req) => {
  const labels = { rpc_service: req.service.typeName, rpc_method: req.method.name };
  const name = `${labels.rpc_service}/${labels.rpc_method}`;
  const handle = async () => {
    const stop = rpcServerDuration.startTimer(labels);
    try {
      const response = await next(req);
      stop({ rpc_code: "ok" });
      return response;
    } catch (error) {
      stop({ rpc_code: resultCode(error) });
      throw error;
    }
  };
  const span = trace.getActiveSpan();
  if (span) {
    span.updateName(name);
    span.setAttributes(rpcAttributes(labels.rpc_service, labels.rpc_method));
    return handle();
  }
  const parent = propagation.extract(ROOT_CONTEXT, req.header, headerGetter);
  return withSpan(name, { kind: SpanKind.SERVER, parent, attributes: rpcAttributes(labels.rpc_service, labels.rpc_method) }, handle);
};
