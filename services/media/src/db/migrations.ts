import type { Migrations } from "@transcribe/platform";

/** The media service's schema: uploaded file records and their objects. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
