import { describe, expect, it } from "vitest";
import { createAppQueryClient, isRetryableError, queryRetryDelay, shouldRetryQuery } from "../src/app/query-client";

describe("query retry policy", () => {
  it("retries network and timeout errors without a status, and 5xx responses", () => {
    expect(isRetryableError({ kind: "network" })).toBe(true);
    expect(isRetryableError({ kind: "timeout" })).toBe(true);
    expect(isRetryableError({ kind: "http", status: 500 })).toBe(true);
    expect(isRetryableError({ kind: "http", status: 599 })).toBe(true);
  });

  it("does not retry client errors, parse errors or unknown values", () => {
    expect(isRetryableError({ kind: "http", status: 404 })).toBe(false);
    expect(isRetryableError({ kind: "http", status: 401 })).toBe(false);
    expect(isRetryableError({ kind: "parse" })).toBe(false);
    expect(isRetryableError(new Error("x"))).toBe(false);
    expect(isRetryableError(null)).toBe(false);
  });

  it("stops after three attempts", () => {
    expect(shouldRetryQuery(0, { kind: "network" })).toBe(true);
    expect(shouldRetryQuery(2, { kind: "network" })).toBe(true);
    expect(shouldRetryQuery(3, { kind: "network" })).toBe(false);
  });

  it("waits 1 s first, then doubles, capped at 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(queryRetryDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it("never retries mutations and does not refetch on focus", () => {
    const defaults = createAppQueryClient().getDefaultOptions();
    expect(defaults.mutations?.retry).toBe(false);
    expect(defaults.queries?.refetchOnWindowFocus).toBe(false);
    expect(defaults.queries?.staleTime).toBe(300_000);
    expect(defaults.queries?.gcTime).toBe(900_000);
  });
});
