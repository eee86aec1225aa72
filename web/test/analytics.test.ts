// Analytics facade logic with a fake PostHog client behind the module's test seam; the
// identify/reset rules under test are the real ones.
import posthog from "posthog-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  capture,
  DEFAULT_POSTHOG_HOST,
  identifyUser,
  initAnalytics,
  setAnalyticsLoaderForTests,
  type AnalyticsClient,
} from "../src/lib/analytics";

class FakePostHog implements AnalyticsClient {
  readonly calls: unknown[][] = [];
  constructor(public distinctId = "0190a1b2-anonymous") {}
  capture(event: string, props?: object) {
    this.calls.push(["capture", event, props]);
  }
  identify(distinctId: string, props?: object) {
    this.calls.push(["identify", distinctId, props]);
    this.distinctId = distinctId;
  }
  reset() {
    this.calls.push(["reset"]);
    this.distinctId = "0190a1b2-new-anonymous";
  }
  get_distinct_id() {
    return this.distinctId;
  }
}

function useFake(fake = new FakePostHog()) {
  setAnalyticsLoaderForTests(() => Promise.resolve(fake));
  return fake;
}

/** Calls are chained on the loader promise; let it settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const alice = { id: "user-alice", email: "alice@example.com" };
const bob = { id: "user-bob", email: "bob@example.com" };

afterEach(() => {
  setAnalyticsLoaderForTests();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("identifyUser", () => {
  it("identifies a signed-in user whose id the distinct id does not start with", async () => {
    const fake = useFake();
    identifyUser(alice);
    await settle();
    expect(fake.calls).toEqual([["identify", "user-alice", { email: "alice@example.com" }]]);
  });

  it("does not identify when the distinct id already starts with the user id", async () => {
    const fake = useFake(new FakePostHog("user-alice"));
    identifyUser(alice);
    await settle();
    expect(fake.calls).toEqual([]);

    const suffixed = useFake(new FakePostHog("user-alice#device-2"));
    identifyUser(alice);
    await settle();
    expect(suffixed.calls).toEqual([]);
  });

  it("does nothing while the user id stays the same", async () => {
    const fake = useFake();
    identifyUser(alice);
    await settle();
    fake.distinctId = "someone-else";
    identifyUser({ ...alice, email: "alice@new.example.com" });
    await settle();
    expect(fake.calls.filter(([name]) => name === "identify")).toHaveLength(1);
  });

  it("re-identifies when the user id changes", async () => {
    const fake = useFake();
    identifyUser(alice);
    identifyUser(bob);
    await settle();
    expect(fake.calls).toEqual([
      ["identify", "user-alice", { email: "alice@example.com" }],
      ["identify", "user-bob", { email: "bob@example.com" }],
    ]);
  });

  it("resets once on sign-out after a signed-in user", async () => {
    const fake = useFake();
    identifyUser(alice);
    identifyUser(null);
    identifyUser(null);
    await settle();
    expect(fake.calls).toEqual([["identify", "user-alice", { email: "alice@example.com" }], ["reset"]]);
  });

  it("does not reset for a visitor who was never signed in", async () => {
    const fake = useFake();
    identifyUser(null);
    await settle();
    expect(fake.calls).toEqual([]);
  });

  it("applies calls made before the client loaded, in order", async () => {
    const fake = new FakePostHog();
    let release: (client: AnalyticsClient) => void = () => {};
    setAnalyticsLoaderForTests(() => new Promise((resolve) => (release = resolve)));
    capture("early_event");
    identifyUser(alice);
    identifyUser(null);
    await settle();
    expect(fake.calls).toEqual([]);

    release(fake);
    await settle();
    expect(fake.calls).toEqual([
      ["capture", "early_event", {}],
      ["identify", "user-alice", { email: "alice@example.com" }],
      ["reset"],
    ]);
  });

  it("signing in again after sign-out identifies the new person", async () => {
    const fake = useFake();
    identifyUser(alice);
    identifyUser(null);
    identifyUser(alice);
    await settle();
    expect(fake.calls.map(([name]) => name)).toEqual(["identify", "reset", "identify"]);
  });
});

describe("capture", () => {
  it("forwards the event and its properties", async () => {
    const fake = useFake();
    capture("404_page_view", { path: "/nope" });
    await settle();
    expect(fake.calls).toEqual([["capture", "404_page_view", { path: "/nope" }]]);
  });

  it("survives a client that failed to load", async () => {
    setAnalyticsLoaderForTests(() => Promise.reject(new Error("chunk failed")));
    expect(() => capture("x")).not.toThrow();
    expect(() => identifyUser(alice)).not.toThrow();
    await settle();
  });
});

describe("the PostHog loader", () => {
  it("without VITE_POSTHOG_KEY: PostHog is never initialised and nothing is captured", async () => {
    vi.stubEnv("VITE_POSTHOG_KEY", "");
    const init = vi.spyOn(posthog, "init");
    const posthogCapture = vi.spyOn(posthog, "capture");
    const identify = vi.spyOn(posthog, "identify");
    initAnalytics();
    capture("404_page_view", { path: "/nope" });
    identifyUser(alice);
    await settle();
    expect(init).not.toHaveBeenCalled();
    expect(posthogCapture).not.toHaveBeenCalled();
    expect(identify).not.toHaveBeenCalled();
  });

  it("with a key: initialises PostHog with the key and the default host", async () => {
    vi.stubEnv("VITE_POSTHOG_KEY", "phc_test_key");
    // Stubbed so the test does not talk to PostHog; what is checked is the configuration passed in.
    const init = vi.spyOn(posthog, "init").mockReturnValue(posthog);
    initAnalytics();
    await vi.waitFor(() => expect(init).toHaveBeenCalledTimes(1));
    expect(init).toHaveBeenCalledWith("phc_test_key", expect.objectContaining({ api_host: DEFAULT_POSTHOG_HOST }));
    expect(DEFAULT_POSTHOG_HOST).toBe("https://us.i.posthog.com");
  });

  it("with a key and VITE_POSTHOG_HOST: uses that host", async () => {
    vi.stubEnv("VITE_POSTHOG_KEY", "phc_test_key");
    vi.stubEnv("VITE_POSTHOG_HOST", "https://eu.i.posthog.com");
    const init = vi.spyOn(posthog, "init").mockReturnValue(posthog);
    initAnalytics();
    await vi.waitFor(() => expect(init).toHaveBeenCalledTimes(1));
    expect(init).toHaveBeenCalledWith("phc_test_key", expect.objectContaining({ api_host: "https://eu.i.posthog.com" }));
  });
});
