import { readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/**
 * What the launcher's provisioning is doing, for the worker to report (health, model
 * list): `<DATA_DIR>/engine/status.json`, named to the services by ENGINE_STATUS_FILE.
 */
export const provisionStatusSchema = z.object({
  state: z.enum(["preparing", "ready", "unavailable"]),
  message: z.string(),
  done: z.number().optional(),
  total: z.number().optional(),
  updatedAt: z.string(),
});
export type ProvisionStatus = z.infer<typeof provisionStatusSchema>;

export function statusFileIn(dataDir: string): string {
  return path.join(dataDir, "engine", "status.json");
}

export async function writeStatus(file: string, status: Omit<ProvisionStatus, "updatedAt">): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ ...status, updatedAt: new Date().toISOString() }));
  await rename(temporary, file);
}

/** undefined when there is no file (no launcher) or it cannot be read. */
export function readStatus(file: string | undefined): ProvisionStatus | undefined {
  if (!file) return undefined;
  try {
    return provisionStatusSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return undefined;
  }
}
