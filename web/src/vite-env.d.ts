/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Product name shown in the header and page titles; operators rebrand without code changes. */
  readonly VITE_BRAND?: string;
  /** Optional operator contact address for the contact page. */
  readonly VITE_CONTACT_EMAIL?: string;
  /**
   * Social providers the auth service has configured (comma-separated: github, google), so
   * Account Settings offers linking them. The auth service has no route that lists them.
   */
  readonly VITE_AUTH_SOCIAL_PROVIDERS?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
