import { AppError } from "@transcribe/platform";

/**
 * Seconds from now until the wanted expiry, as @better-auth/api-key takes it. A moment in
 * the past (or within the next second) is refused: a key that is dead on arrival is a mistake.
 */
export function apiKeyExpiresIn(expiresAt: Date, now: Date): number {
  const seconds = Math.floor((expiresAt.getTime() - now.getTime()) / 1000);
  if (!Number.isFinite(seconds) || seconds < 1) throw new AppError("invalid_argument", "expires_at must be in the future");
  if (seconds > 3650 * 86_400) throw new AppError("invalid_argument", "expires_at must be within ten years");
  return seconds;
}

/** What a refused key means for the caller: over its rate limit (retry later), or simply not valid. */
export function keyFailure(error: unknown): { retryAfterSeconds?: number } {
  if (!error || typeof error !== "object") return {};
  const { code, details } = error as { code?: unknown; details?: { tryAgainIn?: unknown } };
  if (code !== "RATE_LIMITED") return {};
  const ms = typeof details?.tryAgainIn === "number" ? details.tryAgainIn : 1000;
  return { retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) };
}
