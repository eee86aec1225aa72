import type { Segment, Word } from "../../lib/api/generated/zod.gen";

/** Index of the segment playing at `time` (start <= time < end), or -1 between/outside segments. */
export function activeIndex<T extends Pick<Segment | Word, "start" | "end">>(items: readonly T[], time: number): number {
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const item = items[mid]!;
    if (time < item.start) high = mid - 1;
    else if (time >= item.end) low = mid + 1;
    else return mid;
  }
  return -1;
}
