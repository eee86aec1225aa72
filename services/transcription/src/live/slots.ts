/** Live audio on every hop after the browser: 16 kHz mono signed 16-bit little-endian PCM. */
export const LIVE_SAMPLE_RATE = 16_000;

/** The largest audio frame a caller may send in one message (about 32 s of audio). */
export const MAX_FRAME_BYTES = 1 << 20;

export interface Slot<T> {
  readonly value: T;
  release(): void;
}

/**
 * Live sessions take slots like jobs take worker slots, but never queue for one: a live
 * session that waits is lag the speaker cannot see, so no free slot is a refusal at once
 * (decision 0030). A slot's value (its engine process) outlives its sessions.
 */
export class SlotPool<T> {
  private readonly free: T[];
  private busy = 0;

  constructor(private readonly values: readonly T[]) {
    this.free = [...values];
  }

  get inUse(): number {
    return this.busy;
  }

  get size(): number {
    return this.free.length + this.busy;
  }

  acquire(): Slot<T> | undefined {
    const value = this.free.pop();
    if (value === undefined) return undefined;
    this.busy++;
    let released = false;
    return {
      value,
      release: () => {
        if (released) return;
        released = true;
        this.busy--;
        this.free.push(value);
      },
    };
  }

  all(): readonly T[] {
    return this.values;
  }
}
