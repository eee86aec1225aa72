import { localModelOf } from "./models.js";

/**
 * How a window is decoded (decision 0026): one 30-second stretch after another
 * ("sequential"), or faster-whisper's batched pipeline, where VAD cuts the window into
 * speech stretches of at most 30 s and the engine decodes `batchSize` of them at once.
 */
export type Device = "cpu" | "cuda";

export interface Hardware {
  device: Device;
  /** CPU threads the engine may use (cores when WHISPER_THREADS is 0). */
  threads: number;
  /** Free memory (bytes) the batch may take: RAM on the CPU, GPU memory on CUDA. */
  freeMemoryBytes: number;
}

const MIB = 1024 * 1024;

/**
 * Working memory one item of a batch needs beyond the loaded model: the registry's figure
 * for the model (domain/models.ts); a name outside the catalog is taken for a large one.
 */
function perItemBytes(model: string): number {
  return localModelOf(model)?.weights?.batchItemBytes ?? 600 * MIB;
}

/**
 * The batch size for a model on this hardware. On the CPU a batch helps while each core
 * has a few stretches to work through (CTranslate2 runs a batch's matrix products over all
 * its threads), so it grows with the threads, up to 16; on a GPU 16 is faster-whisper's
 * own choice. Either way it never asks for more than half the free memory.
 */
export function chooseBatchSize(model: string, hardware: Hardware): number {
  const wanted = hardware.device === "cuda" ? 16 : Math.min(16, Math.max(2, 4 * hardware.threads));
  const affordable = Math.floor((hardware.freeMemoryBytes / 2) / perItemBytes(model));
  return Math.max(1, Math.min(wanted, affordable));
}

/**
 * Whether a file of `durationSeconds` is decoded batched: only when batching is on
 * (batchSize > 0) and the file is at least `fromSeconds` long. Short files gain nothing
 * (one or two stretches fill no batch) and keep the sequential path's temperature fallback.
 */
export function useBatched(durationSeconds: number, batchSize: number, fromSeconds: number): boolean {
  return batchSize > 0 && durationSeconds >= fromSeconds;
}
