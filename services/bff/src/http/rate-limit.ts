import { AppError } from "@transcribe/platform";

/**
 * A fixed-window counter per key, in memory (one BFF process; with several replicas each
 * counts on its own, so the limit is per replica). Enough for forms that mail a person.
 */
export function createRateLimiter(options: { limit: number; windowMs: number; now?: () => number; maxKeys?: number }) {
  const now = options.now ?? Date.now;
  const maxKeys = options.maxKeys ?? 50_000;
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    /** Counts one use of `key`; throws resource_exhausted (429) past the limit. */
    hit(key: string): void {
      const at = now();
      if (windows.size >= maxKeys) for (const [k, w] of windows) if (w.resetAt <= at) windows.delete(k);
      const current = windows.get(key);
      if (!current || current.resetAt <= at) {
        windows.set(key, { count: 1, resetAt: at + options.windowMs });
        return;
      }
      if (current.count >= options.limit) {
        const retryAfterSeconds = Math.ceil((current.resetAt - at) / 1000);
        throw new AppError("resource_exhausted", "Too many messages. Please try again later.", { retry_after_seconds: retryAfterSeconds });
      }
      current.count += 1;
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
