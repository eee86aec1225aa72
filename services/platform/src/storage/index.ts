export * from "./port.js";
export * from "./keys.js";
export * from "./constraints.js";
export * from "./range.js";
export * from "./content-disposition.js";
export * from "./signing.js";
export * from "./local.js";
export * from "./signed-url-routes.js";
