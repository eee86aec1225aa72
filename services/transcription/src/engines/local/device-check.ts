import type { Logger } from "@transcribe/platform";
import type { Device } from "../../domain/decoding.js";
import { EngineCallError, WhisperProcess } from "./whisper-process.js";

/**
 * Asks the engine whether CTranslate2 can run on `device` with `computeType` here. A GPU
 * worker whose node lost its GPU, driver or CUDA libraries must not start and then fail
 * every large-model job: undefined when it can, else why not.
 */
export async function deviceProblem(python: string, device: Device, computeType: string, logger: Logger): Promise<string | undefined> {
  if (device === "cpu") return undefined;
  const engine = new WhisperProcess(python, logger);
  try {
    await engine.call({ op: "device", device, compute_type: computeType }, { timeoutMs: 120_000 });
    return undefined;
  } catch (error) {
    return error instanceof EngineCallError ? error.failure.message : error instanceof Error ? error.message : String(error);
  } finally {
    await engine.close();
  }
}
