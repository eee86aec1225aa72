import type { CloudProviderName } from "../domain/models.js";
import type { Transcriber } from "../domain/transcriber.js";
import { ElevenLabsTranscriber } from "./cloud/elevenlabs.js";
import { GroqTranscriber } from "./cloud/groq.js";

export interface CloudAdapterOptions {
  apiKey: string;
  /** The registry's baseUrlVariable, when set; otherwise the provider's own address. */
  baseURL?: string | undefined;
}

/**
 * The adapter of each cloud provider of the registry (domain/models.ts), made from its key
 * and address; the worker makes the local engine itself from its many settings. Kept out of
 * the registry because domain code does no I/O; the type makes a registered provider
 * without an adapter a compile error.
 */
export const cloudAdapters: Record<CloudProviderName, (options: CloudAdapterOptions) => Transcriber> = {
  groq: (options) => new GroqTranscriber(options),
  elevenlabs: (options) => new ElevenLabsTranscriber(options),
};
