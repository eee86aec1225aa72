import type { Migrations } from "@transcribe/platform";

/** The export service's schema: export records. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
