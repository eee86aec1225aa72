import { localModelOf, type ProviderName } from "./models.js";

/**
 * Worker pools (decision 0026). A job is routed to a pool when it is created: the local
 * engine's large models go to the GPU pool (one of them on the CPU is slower than real
 * time), everything else — small local models, the cloud engines, speaker-only jobs — to
 * the CPU pool. Which local model is large is the registry's fact (domain/models.ts). A
 * worker with WORKER_POOL set leases only its pool's jobs; one without (a laptop, a single
 * worker) leases every job.
 */
export const POOLS = ["cpu", "gpu"] as const;
export type Pool = (typeof POOLS)[number];

export function poolFor(job: { provider: ProviderName; engineModel: string; kind?: "transcribe" | "diarize" | undefined }): Pool {
  if (job.kind === "diarize" || job.provider !== "local") return "cpu";
  return localModelOf(job.engineModel)?.weights?.pool ?? "cpu";
}
