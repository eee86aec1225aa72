/**
 * An interruptible sleep for polling loops. A wake() that arrives while the loop is busy
 * is remembered, so the next wait() returns at once instead of missing it.
 */
export class Wakeup {
  #pending = false;
  #release: (() => void) | undefined;

  wake(): void {
    this.#pending = true;
    this.#release?.();
  }

  wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#release = undefined;
        this.#pending = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#release = done;
    });
  }
}

/** Resolves after ms, or as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Exponential backoff with full jitter on the upper half, capped. */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}
