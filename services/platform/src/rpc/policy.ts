/**
 * Which service may call which RPC (decision 0023). An entry is `package.Service/Method`
 * or `package.Service/*`. The callee checks the verified caller against it; anything not
 * granted is PERMISSION_DENIED. Other teams' services are granted with RPC_GRANTS.
 */
export type Grants = Readonly<Record<string, readonly string[]>>;

const everyServiceRpc = [
  "transcribe.auth.v1.AuthService/*",
  "transcribe.media.v1.MediaService/*",
  "transcribe.transcription.v1.TranscriptionService/*",
  "transcribe.billing.v1.BillingService/*",
  "transcribe.export.v1.ExportService/*",
  "transcribe.blog.v1.BlogService/*",
  "transcribe.notifier.v1.NotifierService/*",
  "transcribe.webhooks.v1.WebhooksService/*",
  "transcribe.live.v1.LiveTranscriptionService/*",
];

export const builtInGrants: Grants = {
  bff: everyServiceRpc,
  transcription: [
    "transcribe.media.v1.MediaService/GetFile",
    "transcribe.media.v1.MediaService/GetAudioUrl",
    "transcribe.billing.v1.BillingService/CheckQuota",
  ],
  "transcription-worker": ["transcribe.media.v1.MediaService/GetFile", "transcribe.media.v1.MediaService/GetAudioUrl"],
  export: ["transcribe.transcription.v1.TranscriptionService/GetTranscription"],
};

/** Callers that act for signed-in users: their calls must name the user in the token. */
export const userBoundCallers: ReadonlySet<string> = new Set(["bff"]);

/** Any verified caller may ask our own health service (the BFF's /api/v1/health). */
const grantedToEveryCaller = ["transcribe.health.v1.HealthService/*"];

/** Answer without credentials: kubelet's grpc probes and grpcurl's listing carry none. */
export const openServices: ReadonlySet<string> = new Set([
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
]);

/**
 * RPC_GRANTS: `caller=pkg.Service/Method` entries separated by commas or whitespace,
 * added to the built-in grants (e.g. `reports=transcribe.transcription.v1.TranscriptionService/GetTranscription`).
 */
export function parseGrants(text: string | undefined): { grants: Record<string, string[]>; problems: string[] } {
  const grants: Record<string, string[]> = {};
  const problems: string[] = [];
  for (const entry of (text ?? "").split(/[\s,]+/).filter(Boolean)) {
    const match = /^([a-z0-9][a-z0-9-]*)=([A-Za-z0-9_.]+\/(?:[A-Za-z0-9_]+|\*))$/.exec(entry);
    if (!match) {
      problems.push(`"${entry}" is not caller=package.Service/Method (or /*)`);
      continue;
    }
    const [, caller, method] = match;
    grants[caller!] = [...(grants[caller!] ?? []), method!];
  }
  return { grants, problems };
}

export function mergeGrants(...sets: Grants[]): Grants {
  const merged: Record<string, string[]> = {};
  for (const set of sets) for (const [caller, list] of Object.entries(set)) merged[caller] = [...(merged[caller] ?? []), ...list];
  return merged;
}

export function isGranted(grants: Grants, caller: string, service: string, method: string): boolean {
  const allowed = [...(grants[caller] ?? []), ...grantedToEveryCaller];
  return allowed.some((entry) => entry === `${service}/${method}` || entry === `${service}/*`);
}
