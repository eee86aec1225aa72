import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    postgresBaseUrl: string;
  }
}

/**
 * A fresh, empty database on the test run's PostgreSQL (started once by the global
 * setup, or TEST_POSTGRES_URL when set). Each test file gets its own so files run in
 * parallel without seeing each other's rows.
 */
export async function createTestDatabase(prefix = "test"): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const baseUrl = inject("postgresBaseUrl");
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await adminQuery(baseUrl, `create database "${name}"`);
  return {
    name,
    url: `${baseUrl}/${name}`,
    drop: () => adminQuery(baseUrl, `drop database if exists "${name}" with (force)`),
  };
}

async function adminQuery(baseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${baseUrl}/postgres` });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
