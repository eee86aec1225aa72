import { defineGauge } from "@transcribe/platform";
import type { SlotPool } from "./slots.js";

let pool: Pick<SlotPool<unknown>, "inUse" | "size"> | undefined;

/**
 * Open live sessions of this process: what the live workers' autoscaler scales on
 * (decision 0030; charts/transcribe templates/hpa.yaml), since a session holds its slot's
 * engine whether it decodes much or little. Read from the slots at scrape time.
 */
defineGauge({
  name: "live_sessions_open",
  help: "Live sessions this live worker holds a slot for now",
  collect() {
    this.set(pool?.inUse ?? 0);
  },
});

defineGauge({
  name: "live_slots",
  help: "Live sessions this live worker can hold at once (LIVE_SLOTS)",
  collect() {
    this.set(pool?.size ?? 0);
  },
});

/** The slots the live metrics are read from. */
export function countLiveSessionsIn(slots: Pick<SlotPool<unknown>, "inUse" | "size">): void {
  pool = slots;
}
