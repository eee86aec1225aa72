/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Product name shown in the header and page titles; operators rebrand without code changes. */
  readonly VITE_BRAND?: string;
  /** Optional operator contact address for the contact page. */
  readonly VITE_CONTACT_EMAIL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
