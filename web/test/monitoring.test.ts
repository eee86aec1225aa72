// Error reporting setup, run through the real Sentry SDK with an in-memory transport, so
// "dropped" and "kept" mean what Sentry would actually have sent.
import * as Sentry from "@sentry/react";
import type { BrowserOptions, ErrorEvent } from "@sentry/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  buildSentryOptions,
  dropNoiseEvents,
  initMonitoring,
  reportRenderError,
  resetMonitoringForTests,
  resolveEnvironment,
  sampleRatesFor,
  type MonitoringSettings,
} from "../src/lib/monitoring";

const DSN = "https://publickey@o0.ingest.sentry.invalid/1";

type Transport = ReturnType<NonNullable<BrowserOptions["transport"]>>;
type Envelope = Parameters<Transport["send"]>[0];

/** Captures the envelopes Sentry would have posted. */
function memoryTransport() {
  const sent: Envelope[] = [];
  const transport: BrowserOptions["transport"] = () => ({
    send: async (envelope: Envelope) => {
      sent.push(envelope);
      return { statusCode: 200 };
    },
    flush: async () => true,
  });
  // Envelope item types are a wide union; only the error events matter here.
  const events = (): ErrorEvent[] =>
    sent
      .flatMap(([, items]) => items as unknown as [{ type: string }, unknown][])
      .flatMap(([header, payload]) => (header.type === "event" ? [payload as ErrorEvent] : []));
  return { transport, events };
}

const messagesOf = (events: ErrorEvent[]) => events.map((event) => event.exception?.values?.at(-1)?.value);

afterEach(async () => {
  await Sentry.close(0);
  resetMonitoringForTests();
  vi.restoreAllMocks();
});

describe("initMonitoring", () => {
  it("without a DSN loads and initialises nothing", async () => {
    const load = vi.fn(async () => Sentry);
    // Default settings come from the test build's env, which has no VITE_SENTRY_DSN.
    await expect(initMonitoring({ load })).resolves.toBe(false);
    await expect(initMonitoring({ load, settings: { dsn: undefined, environment: "production" } })).resolves.toBe(false);
    expect(load).not.toHaveBeenCalled();
    expect(Sentry.getClient()).toBeUndefined();
    // And reporting stays a silent no-op.
    expect(() => reportRenderError("uncaught", new Error("boom"), { componentStack: "" })).not.toThrow();
  });

  it("with a DSN initialises Sentry with the environment and the spec's rates", async () => {
    const init = vi.fn();
    const load = vi.fn(async () => ({ ...Sentry, init }));
    await expect(initMonitoring({ load, settings: { dsn: DSN, environment: "preview" } })).resolves.toBe(true);
    expect(load).toHaveBeenCalledTimes(1);
    expect(init).toHaveBeenCalledWith(
      expect.objectContaining({
        dsn: DSN,
        environment: "preview",
        sampleRate: 0.85,
        tracesSampleRate: 0.25,
        profileSessionSampleRate: 0.8,
        profileLifecycle: "trace",
      }),
    );
    const { integrations } = init.mock.calls[0]![0] as BrowserOptions;
    expect((integrations as { name: string }[]).map((integration) => integration.name)).toEqual(
      expect.arrayContaining(["BrowserTracing", "BrowserProfiling"]),
    );
  });

  it("keeps the app running when the SDK fails to load", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const load = vi.fn(() => Promise.reject(new Error("chunk failed")));
    await expect(initMonitoring({ load, settings: { dsn: DSN, environment: "production" } })).resolves.toBe(false);
    expect(() => reportRenderError("caught", new Error("boom"), {})).not.toThrow();
  });

  it("reports React root errors with the component stack once running", async () => {
    const { transport, events } = memoryTransport();
    const load = async () => ({
      ...Sentry,
      init: (options: BrowserOptions) => Sentry.init({ ...options, sampleRate: 1, transport }),
    });
    await initMonitoring({ load, settings: { dsn: DSN, environment: "production" } });

    reportRenderError("uncaught", new Error("widget broke"), { componentStack: "\n    at ExplodingWidget" });
    await vi.waitFor(async () => {
      await Sentry.flush(100);
      expect(events()).toHaveLength(1);
    });
    const [event] = events();
    expect(event!.environment).toBe("production");
    const values = event!.exception!.values!;
    expect(values.at(-1)!.value).toBe("widget broke");
    // Sentry's React helper puts the component stack in a chained "React ErrorBoundary" cause,
    // which carries our mechanism: not handled, because nothing showed a fallback.
    const reactCause = values.find((value) => value.type === "React ErrorBoundary Error");
    expect(reactCause?.mechanism).toMatchObject({ type: "auto.function.react.error_handler", handled: false });
    expect(JSON.stringify(event!.exception!.values)).toContain("ExplodingWidget");
  });
});

describe("noise filtering", () => {
  async function send(errors: Error[]) {
    const { transport, events } = memoryTransport();
    const settings: MonitoringSettings & { dsn: string } = { dsn: DSN, environment: "production" };
    // Rate 1 here: sampling is tested separately; this is only about which errors pass the filters.
    Sentry.init({ ...buildSentryOptions(settings, Sentry), integrations: [], sampleRate: 1, transport });
    for (const error of errors) Sentry.captureException(error);
    await Sentry.flush(500);
    return events();
  }

  it("drops 'Script error.' and both ResizeObserver loop notices, keeps real errors", async () => {
    const events = await send([
      new Error("Script error."),
      new Error("ResizeObserver loop limit exceeded"),
      new Error("ResizeObserver loop completed with undelivered notifications"),
      new Error("Cannot read properties of undefined (reading 'id')"),
      new TypeError("Failed to fetch"),
    ]);
    expect(messagesOf(events)).toEqual(["Cannot read properties of undefined (reading 'id')", "Failed to fetch"]);
  });

  it("beforeSend also catches noise hidden in a chained cause", () => {
    const event = {
      type: undefined,
      exception: {
        values: [
          { type: "Error", value: "ResizeObserver loop limit exceeded" },
          { type: "Error", value: "Layout failed" },
        ],
      },
    } as ErrorEvent;
    expect(dropNoiseEvents(event)).toBeNull();
    expect(dropNoiseEvents({ type: undefined, message: "Script error." } as ErrorEvent)).toBeNull();

    const real = { type: undefined, exception: { values: [{ type: "Error", value: "Layout failed" }] } } as ErrorEvent;
    expect(dropNoiseEvents(real)).toBe(real);
  });
});

describe("sample rates and environment", () => {
  it("production and preview: 0.85 errors, 0.25 traces, 0.8 profiles", () => {
    for (const environment of ["production", "preview"] as const) {
      expect(sampleRatesFor(environment)).toEqual({ sampleRate: 0.85, tracesSampleRate: 0.25, profileSessionSampleRate: 0.8 });
    }
  });

  it("development: nothing sampled", () => {
    expect(sampleRatesFor("development")).toEqual({ sampleRate: 0, tracesSampleRate: 0, profileSessionSampleRate: 0 });
    const options = buildSentryOptions({ dsn: DSN, environment: "development" }, Sentry);
    expect([options.sampleRate, options.tracesSampleRate, options.profileSessionSampleRate]).toEqual([0, 0, 0]);
  });

  it("VITE_APP_ENV wins over the Vite mode", () => {
    expect(resolveEnvironment("preview", "production", false)).toBe("preview");
    expect(resolveEnvironment(" development ", "production", false)).toBe("development");
  });

  it("falls back to the Vite mode, then to the build type", () => {
    expect(resolveEnvironment(undefined, "production", false)).toBe("production");
    expect(resolveEnvironment("", "preview", false)).toBe("preview");
    expect(resolveEnvironment(undefined, "development", true)).toBe("development");
    expect(resolveEnvironment(undefined, "test", true)).toBe("development");
    expect(resolveEnvironment(undefined, "staging", false)).toBe("production");
  });

  it("ignores an unknown VITE_APP_ENV with a warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(resolveEnvironment("prod", "production", false)).toBe("production");
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('VITE_APP_ENV="prod"'));
  });
});
