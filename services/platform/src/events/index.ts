export * from "./catalog.js";
export * from "./envelope.js";
export * from "./outbox.js";
export * from "./bus.js";
export * from "./topology.js";
export * from "./pgboss-bus.js";
export * from "./relay.js";
export * from "./consumer.js";
