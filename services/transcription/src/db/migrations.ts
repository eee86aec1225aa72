import type { Migrations } from "@transcribe/platform";

/** The transcription service's schema: transcriptions, results and jobs. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
