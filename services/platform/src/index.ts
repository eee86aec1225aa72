export * from "./errors.js";
export * from "./config.js";
export * from "./logger.js";
export * from "./db/database.js";
export * from "./db/migrations.js";
export * from "./db/embedded-postgres.js";
