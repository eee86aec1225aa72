import { eventTopology, PgBossEventBus, type PgBossEventBusOptions } from "../events/index.js";
import type { Logger } from "../logger.js";

/**
 * Bus timings short enough for tests: idle queues polled every 100 ms, five quick retries,
 * a short stop; a delivery held by a crashed consumer comes back after about expire (2 s)
 * + maintenance (1 s).
 */
export const fastBus = {
  expireInSeconds: 2,
  maintenanceIntervalSeconds: 1,
  pollingIntervalMs: 100,
  retryLimit: 5,
  retryDelay: 0,
  retryBackoff: false,
  max: 3,
  stopTimeoutMs: 2_000,
} satisfies Partial<PgBossEventBusOptions>;

/**
 * The embedded bus (pg-boss) as a service's test harness runs it: the product's topology and
 * fastBus's timings, except that a delivery is held 30 s (a slow handler on a busy machine
 * is not taken for a crashed one).
 */
export function testEventBus(url: string, logger: Logger): PgBossEventBus {
  return new PgBossEventBus({ url, logger, topology: eventTopology, ...fastBus, expireInSeconds: 30 });
}
