/** Every API key starts with it (the auth service's API_KEY_PREFIX). */
export const API_KEY_PREFIX = "tsk_";

export function bearerOf(authorization: string | undefined): string {
  return /^Bearer (.+)$/i.exec(authorization ?? "")?.[1]?.trim() ?? "";
}

export function isApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/**
 * What an API key may do: the OpenAI-compatible API, async jobs, and the transcription,
 * vocabulary, file and export routes. Everything else (account, billing, API keys, webhooks, support)
 * needs the person's session: a leaked key cannot mint keys, register a webhook that
 * exfiltrates transcripts, or touch the account.
 */
const KEY_ROUTE_PREFIXES = ["/v1/", "/api/v1/jobs", "/api/v1/transcriptions", "/api/v1/vocabulary", "/api/v1/files", "/api/v1/upload", "/api/v1/retrieve", "/api/v1/models", "/api/v1/live"];

/**
 * The one answer to "may an API key call this route": the gate (session.ts) enforces it and the
 * route table records it, so the contract test holds the document's `security` to it.
 */
export function apiKeyMayUse(routeUrl: string, config?: { sessionOnly?: boolean }): boolean {
  if (config?.sessionOnly) return false;
  return KEY_ROUTE_PREFIXES.some((prefix) => routeUrl === prefix || routeUrl.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`) || routeUrl.startsWith(`${prefix}?`));
}
