import { describe, expect, it } from "vitest";
import { checkEvents, messages, nextAttemptAt, parseEndpointUrl } from "../src/domain/rules.js";

describe("webhook rules", () => {
  it("backs off exponentially from the base, at most an hour apart, and gives up past the window", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const day = new Date(now.getTime() + 86_400_000);
    const delays = [1, 2, 3, 4, 8, 20].map((attempts) => (nextAttemptAt(attempts, now, day, 30)!.getTime() - now.getTime()) / 1000);
    expect(delays).toEqual([30, 60, 120, 240, 3600, 3600]);
    expect(nextAttemptAt(3, now, new Date(now.getTime() + 60_000), 30)).toBeUndefined();
  });

  it("takes only the two events, at least one", () => {
    expect(checkEvents(["transcription.failed", "transcription.completed", "transcription.failed"])).toEqual(["transcription.failed", "transcription.completed"]);
    expect(() => checkEvents([])).toThrow(messages.events);
    expect(() => checkEvents(["transcription.created"])).toThrow("Unknown event 'transcription.created'");
  });

  it("takes http(s) URLs without credentials", () => {
    expect(parseEndpointUrl(" https://hooks.example.com/x ").href).toBe("https://hooks.example.com/x");
    expect(() => parseEndpointUrl("not a url")).toThrow(messages.invalidUrl);
    expect(() => parseEndpointUrl("file:///etc/passwd")).toThrow(messages.scheme);
    expect(() => parseEndpointUrl("https://a:b@hooks.example.com/")).toThrow(messages.credentials);
  });
});
