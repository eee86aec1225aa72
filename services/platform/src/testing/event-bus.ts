import { eventTopology, PgBossEventBus } from "../events/index.js";
import type { Logger } from "../logger.js";

/**
 * The embedded bus (pg-boss) as a service's test harness runs it: the product's topology,
 * idle queues polled every 100 ms, five quick retries, a short stop; a delivery held by a
 * crashed consumer comes back after 30 s.
 */
export function testEventBus(url: string, logger: Logger): PgBossEventBus {
  return new PgBossEventBus({
    url,
    logger,
    topology: eventTopology,
    expireInSeconds: 30,
    maintenanceIntervalSeconds: 1,
    pollingIntervalMs: 100,
    retryLimit: 5,
    retryDelay: 0,
    retryBackoff: false,
    max: 3,
    stopTimeoutMs: 2_000,
  });
}
