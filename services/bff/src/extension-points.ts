import { enumNames } from "@transcribe/platform";
import { type ExportFormat, ExportFormatSchema } from "@transcribe/proto/export/v1/export";
import { type Provider, ProviderSchema } from "@transcribe/proto/transcription/v1/transcription";

/**
 * The API's names of the speech providers and the export formats: the proto enums' names
 * (PROVIDER_GROQ is "groq", EXPORT_FORMAT_RTTM is "rttm"), so the OpenAPI document's enums
 * follow the transcription service's provider registry and the export service's format
 * registry with no list of our own here (decision 0036).
 */
export const speechProviders = enumNames<Provider>(ProviderSchema);
export const providerNames = speechProviders.names as [string, ...string[]];

/** The API's name of a provider; an unset one is the local engine. */
export function providerName(provider: Provider): string {
  return speechProviders.name(provider) ?? "local";
}

export const exportFormats = enumNames<ExportFormat>(ExportFormatSchema);
export const exportFormatNames = exportFormats.names as [string, ...string[]];

/** "txt, docx or pdf". */
export function namesText(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : (names[0] ?? "");
}
