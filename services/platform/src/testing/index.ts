export { createTestDatabase } from "./postgres.js";
export { freePort, freePortBlock } from "./free-port.js";
export { serviceKeyEnv } from "./service-keys.js";
export { skipGroups, SKIPS_FILE_ENV, type RecordedSkip, type SkipGroup } from "./skip-groups.js";
export { skipWhen } from "./skips.js";
export { fastBus, testEventBus } from "./event-bus.js";
export { startOwnBroker, type OwnBroker } from "./kafka-broker.js";
