import { describe, expect, it } from "vitest";
import { createResultCache } from "../src/rpc/result-cache.js";

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);
const key = (transcriptionId: string, rowVersion = "100/1", revision = 1, withWords = true) => ({ transcriptionId, rowVersion, revision, withWords });

describe("the transcript result cache", () => {
  it("finds an entry only under the same row version, revision and word choice", () => {
    const cache = createResultCache(1024);
    cache.set(key("a"), bytes(10, 7));
    expect(cache.get(key("a"))).toEqual(bytes(10, 7));
    // A write to the row (a renamed speaker, a new revision) changes its version: a miss.
    expect(cache.get(key("a", "101/2"))).toBeUndefined();
    expect(cache.get(key("a", "100/1", 2))).toBeUndefined();
    expect(cache.get(key("a", "100/1", 1, false))).toBeUndefined();
    expect(cache.get(key("b"))).toBeUndefined();
  });

  it("keeps within its byte budget, dropping the least recently used first", () => {
    const cache = createResultCache(100);
    cache.set(key("a"), bytes(20));
    cache.set(key("b"), bytes(20));
    cache.set(key("c"), bytes(20));
    cache.set(key("d"), bytes(20));
    expect(cache.get(key("a"))).toBeDefined(); // a is now the most recently used
    cache.set(key("e"), bytes(25)); // 105 bytes: one must go, and it is b
    expect(cache.get(key("b"))).toBeUndefined();
    expect(cache.get(key("a"))).toBeDefined();
    expect(cache.size).toBe(4);
    // An entry over a quarter of the budget is not kept at all.
    cache.set(key("big"), bytes(26));
    expect(cache.get(key("big"))).toBeUndefined();
  });

  it("replaces an entry under the same key without counting it twice", () => {
    const cache = createResultCache(50);
    cache.set(key("a"), bytes(12));
    cache.set(key("a"), bytes(12, 2));
    cache.set(key("b"), bytes(12));
    cache.set(key("c"), bytes(12));
    cache.set(key("d"), bytes(12));
    expect(cache.get(key("a"))).toEqual(bytes(12, 2));
    expect(cache.size).toBe(4);
  });
});
