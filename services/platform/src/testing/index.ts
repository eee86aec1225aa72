export { createTestDatabase } from "./postgres.js";
export { freePort } from "./global-setup.js";
export { serviceKeyEnv } from "./service-keys.js";
