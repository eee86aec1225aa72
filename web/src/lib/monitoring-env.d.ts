// Build-time settings for the third-party services (analytics and error reporting). Kept
// next to the modules that read them; every one is optional and blank means "off".
interface ImportMetaEnv {
  /** PostHog project key; analytics is off without it. */
  readonly VITE_POSTHOG_KEY?: string;
  /** PostHog ingestion host; defaults to PostHog's US cloud. */
  readonly VITE_POSTHOG_HOST?: string;
  /** Sentry DSN; error reporting is off without it. */
  readonly VITE_SENTRY_DSN?: string;
  /** Reported environment: 'development' | 'production' | 'preview'; defaults to the Vite mode. */
  readonly VITE_APP_ENV?: string;
}
