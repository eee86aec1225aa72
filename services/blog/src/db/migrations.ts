import type { Migrations } from "@transcribe/platform";

/** The blog service's schema: blog posts. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
