// Error reporting (docs/requirements.md "Errors", "Limits") through Sentry, used only when the operator sets
// VITE_SENTRY_DSN. Without it @sentry/react is never even downloaded: it is imported
// dynamically, and only type imports of it appear at the top of this module.
//
// Render errors that happen before the SDK has loaded are chained on the load promise and
// sent once it is ready; browser-level errors in that first moment are not caught.
import type { BrowserOptions, ErrorEvent } from "@sentry/react";
import type { ErrorInfo } from "react";

type SentryModule = typeof import("@sentry/react");

export type AppEnvironment = "development" | "production" | "preview";
export const APP_ENVIRONMENTS: readonly AppEnvironment[] = ["development", "production", "preview"];

/** docs/requirements.md "Limits"; all zero in development so local work never reaches the shared project. */
export const ERROR_SAMPLE_RATE = 0.85;
export const TRACES_SAMPLE_RATE = 0.25;
export const PROFILES_SAMPLE_RATE = 0.8;

export interface SampleRates {
  sampleRate: number;
  tracesSampleRate: number;
  /**
   * Sentry 10 browser profiling (browserProfilingIntegration) takes the profile rate as
   * profileSessionSampleRate with profileLifecycle 'trace': profiles run while a sampled trace
   * is active, as the deprecated per-transaction profilesSampleRate did.
   */
  profileSessionSampleRate: number;
}

/**
 * Browser noise that says nothing about this app: "Script error." is a cross-origin script
 * failing with its details hidden by the browser, and the ResizeObserver messages are a
 * benign notice (old and new wording) that Chrome reports as an error.
 */
export const NOISE_ERROR_MESSAGES: readonly string[] = [
  "Script error.",
  "ResizeObserver loop limit exceeded",
  "ResizeObserver loop completed with undelivered notifications",
];

export interface MonitoringSettings {
  dsn: string | undefined;
  environment: AppEnvironment;
}

function isAppEnvironment(value: string): value is AppEnvironment {
  return (APP_ENVIRONMENTS as readonly string[]).includes(value);
}

/** VITE_APP_ENV wins; otherwise the Vite mode when it is one of the three, else by build type. */
export function resolveEnvironment(appEnv: string | undefined, mode: string, isDev: boolean): AppEnvironment {
  const explicit = appEnv?.trim();
  if (explicit) {
    if (isAppEnvironment(explicit)) return explicit;
    console.warn(`VITE_APP_ENV=${JSON.stringify(explicit)} is not one of ${APP_ENVIRONMENTS.join(", ")}; ignoring it.`);
  }
  if (isAppEnvironment(mode)) return mode;
  return isDev ? "development" : "production";
}

export function readMonitoringSettings(): MonitoringSettings {
  const env = import.meta.env;
  return {
    dsn: env.VITE_SENTRY_DSN?.trim() || undefined,
    environment: resolveEnvironment(env.VITE_APP_ENV, env.MODE, env.DEV),
  };
}

export function sampleRatesFor(environment: AppEnvironment): SampleRates {
  if (environment === "development") return { sampleRate: 0, tracesSampleRate: 0, profileSessionSampleRate: 0 };
  return { sampleRate: ERROR_SAMPLE_RATE, tracesSampleRate: TRACES_SAMPLE_RATE, profileSessionSampleRate: PROFILES_SAMPLE_RATE };
}

function eventMessages(event: ErrorEvent): string[] {
  const messages = (event.exception?.values ?? []).map((exception) => exception.value ?? "");
  if (event.message) messages.push(event.message);
  return messages;
}

export function isNoiseEvent(event: ErrorEvent): boolean {
  return eventMessages(event).some((message) => NOISE_ERROR_MESSAGES.some((noise) => message.includes(noise)));
}

/**
 * beforeSend: a second line behind ignoreErrors, which checks only the message and the
 * outermost exception; this also checks every chained cause.
 */
export function dropNoiseEvents(event: ErrorEvent): ErrorEvent | null {
  return isNoiseEvent(event) ? null : event;
}

export function buildSentryOptions(settings: MonitoringSettings & { dsn: string }, sentry: SentryModule, router?: unknown): BrowserOptions {
  return {
    dsn: settings.dsn,
    environment: settings.environment,
    ...sampleRatesFor(settings.environment),
    profileLifecycle: "trace",
    integrations: [
      // With the router, traces are named by route pattern (/transcript/$id), not by URL.
      router ? sentry.tanstackRouterBrowserTracingIntegration(router) : sentry.browserTracingIntegration(),
      // Needs the HTML served with `Document-Policy: js-profiling`; without it the profiler
      // does not start and Sentry logs a warning. Nothing else breaks.
      sentry.browserProfilingIntegration(),
    ],
    ignoreErrors: [...NOISE_ERROR_MESSAGES],
    beforeSend: dropNoiseEvents,
  };
}

let sentryReady: Promise<SentryModule | null> | undefined;

export interface InitMonitoringOptions {
  /** The app's router, for route-named traces. */
  router?: unknown;
  settings?: MonitoringSettings;
  /** Test seam: how the SDK module is obtained. */
  load?: () => Promise<SentryModule>;
}

/** Starts error reporting if a DSN is configured; resolves true once it is running. Safe to call once per page. */
export function initMonitoring({
  router,
  settings = readMonitoringSettings(),
  load = () => import("@sentry/react"),
}: InitMonitoringOptions = {}): Promise<boolean> {
  const { dsn } = settings;
  if (!dsn) return Promise.resolve(false);
  sentryReady ??= load()
    .then((sentry) => {
      sentry.init(buildSentryOptions({ ...settings, dsn }, sentry, router));
      return sentry;
    })
    .catch((error: unknown) => {
      // Reporting is never worth breaking the app for (e.g. the chunk failed to download).
      console.warn("Error reporting could not be started; continuing without it.", error);
      return null;
    });
  return sentryReady.then(Boolean);
}

export type RenderErrorKind = "caught" | "uncaught" | "recoverable";

/** Sends a React root error callback's error with its component stack; no-op without a DSN. */
export function reportRenderError(kind: RenderErrorKind, error: unknown, errorInfo: Partial<ErrorInfo>): void {
  void sentryReady?.then((sentry) =>
    sentry?.captureReactException(
      error,
      { componentStack: errorInfo.componentStack ?? "" },
      // "handled" tells Sentry whether something showed the visitor a fallback.
      { mechanism: { handled: kind !== "uncaught", type: "auto.function.react.error_handler" } },
    ),
  );
}

/** Test seam: forgets a previous initMonitoring() call. */
export function resetMonitoringForTests(): void {
  sentryReady = undefined;
}
