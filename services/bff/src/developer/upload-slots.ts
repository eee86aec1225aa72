import { AppError } from "@transcribe/platform";

/** What a refused upload is told to wait: an upload of API_MAX_FILE_BYTES takes about this long. */
const RETRY_AFTER_SECONDS = 30;

/**
 * How many multipart uploads this BFF replica receives at once, in total and per user.
 * Each one may write up to API_MAX_FILE_BYTES to the replica's temporary directory before
 * it goes on to storage, so total × API_MAX_FILE_BYTES must fit that directory (the chart
 * gives it 512Mi: 4 × 100 MB). A user past their share gets 429, anyone past the total
 * 503, both with Retry-After; nothing is written for a refused upload.
 */
export function createUploadSlots(options: { total: number; perUser: number }) {
  const perUser = new Map<string, number>();
  let inUse = 0;
  return {
    /** Takes a slot for `userId` or throws; the returned release is safe to call more than once. */
    acquire(userId: string): () => void {
      const mine = perUser.get(userId) ?? 0;
      if (mine >= options.perUser) {
        throw new AppError("resource_exhausted", `Too many uploads at once (at most ${options.perUser} per account); try again when one has finished`, {
          retry_after_seconds: RETRY_AFTER_SECONDS,
        });
      }
      if (inUse >= options.total) {
        throw new AppError("unavailable", "The server is receiving too many uploads; try again shortly", { retry_after_seconds: RETRY_AFTER_SECONDS });
      }
      inUse += 1;
      perUser.set(userId, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inUse -= 1;
        const left = (perUser.get(userId) ?? 1) - 1;
        if (left > 0) perUser.set(userId, left);
        else perUser.delete(userId);
      };
    },
  };
}
export type UploadSlots = ReturnType<typeof createUploadSlots>;
