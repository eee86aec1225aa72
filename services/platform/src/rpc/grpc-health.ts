import type { EventEmitter } from "node:events";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
} from "@transcribe/proto/grpc/health/v1/health";

/** Kubernetes' liveness probe asks for this name: "the process answers", not its dependencies. */
export const LIVENESS_SERVICE = "liveness";

/** How often a Watch re-runs the readiness checks while nothing else signals a change. */
const WATCH_INTERVAL_MS = 5_000;

export interface HealthState {
  /** Readiness as /readyz computes it (false while draining). */
  ready(): Promise<boolean>;
  /** Emits "change" when readiness may have changed (shutdown started). */
  changes: EventEmitter;
  /** Watch streams open at once; past it a Watch answers RESOURCE_EXHAUSTED (the protocol is unauthenticated). */
  maxWatches: number;
}

/**
 * The standard grpc.health.v1.Health: "" (the server) and every served proto service
 * follow readiness; "liveness" is SERVING while the process answers; other names are
 * NOT_FOUND (Check) or SERVICE_UNKNOWN (Watch), as the protocol says.
 */
export function registerGrpcHealth(router: ConnectRouter, serviceNames: readonly string[], state: HealthState): void {
  const known = new Set(["", ...serviceNames]);
  let watching = 0;
  const statusOf = async (service: string): Promise<ServingStatus | undefined> => {
    if (service === LIVENESS_SERVICE) return ServingStatus.SERVING;
    if (!known.has(service)) return undefined;
    return (await state.ready()) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };

  router.service(Health, {
    async check(request) {
      const status = await statusOf(request.service);
      if (status === undefined) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
      return create(HealthCheckResponseSchema, { status });
    },
    async *watch(request, context) {
      if (watching >= state.maxWatches) throw new ConnectError("Too many health watches on this server", Code.ResourceExhausted);
      watching += 1;
      try {
        let last: ServingStatus | undefined;
        while (!context.signal.aborted) {
          const status = (await statusOf(request.service)) ?? ServingStatus.SERVICE_UNKNOWN;
          if (status !== last) {
            last = status;
            yield create(HealthCheckResponseSchema, { status });
          }
          await nextTick(state.changes, context.signal);
        }
      } finally {
        watching -= 1;
      }
    },
  });
}

/** Resolves on the next change, after WATCH_INTERVAL_MS, or when the caller goes away. */
function nextTick(changes: EventEmitter, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      changes.off("change", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, WATCH_INTERVAL_MS);
    changes.once("change", done);
    signal.addEventListener("abort", done, { once: true });
  });
}
