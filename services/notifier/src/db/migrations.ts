import type { Migrations } from "@transcribe/platform";

/** The notifier service's schema: the outgoing mail log. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
