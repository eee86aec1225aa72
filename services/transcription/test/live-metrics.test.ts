import { metricsRegistry } from "@transcribe/platform";
import { describe, expect, it } from "vitest";
import { countLiveSessionsIn } from "../src/live/metrics.js";
import { SlotPool } from "../src/live/slots.js";

/** The live worker's open sessions, as the autoscaler reads them from /metrics (decision 0030). */
describe("live worker metrics", () => {
  const scrape = async () => {
    const text = await metricsRegistry.metrics();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1]);
    return { open: value("live_sessions_open"), slots: value("live_slots") };
  };

  it("counts the slots held at scrape time: up when a session takes one, down when it is released", async () => {
    const slots = new SlotPool(["engine-a", "engine-b", "engine-c"]);
    countLiveSessionsIn(slots);
    expect(await scrape()).toEqual({ open: 0, slots: 3 });
    const first = slots.acquire()!;
    const second = slots.acquire()!;
    expect(await scrape()).toEqual({ open: 2, slots: 3 });
    first.release();
    first.release(); // twice is once
    expect(await scrape()).toEqual({ open: 1, slots: 3 });
    second.release();
    expect(await scrape()).toEqual({ open: 0, slots: 3 });
  });
});
