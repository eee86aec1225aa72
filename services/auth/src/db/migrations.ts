import type { Migrations } from "@transcribe/platform";

/** The auth service's schema: users, sessions, accounts and verifications (better-auth). Append new migrations; never edit applied ones. */
export const migrations: Migrations = {};
