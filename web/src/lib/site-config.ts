// Operator-facing settings baked in at build time. Blank values count as unset so an
// empty variable in a .env file does not produce a nameless product.

const DEFAULT_BRAND = "Transcribe";

function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export const brand: string = nonBlank(import.meta.env.VITE_BRAND) ?? DEFAULT_BRAND;

export const contactEmail: string | undefined = nonBlank(import.meta.env.VITE_CONTACT_EMAIL);

/** Page titles follow the spec's "{page} {brand}" pattern, e.g. "Blog | Transcribe". */
export function pageTitle(page?: string): string {
  return page ? `${page} | ${brand}` : brand;
}

/**
 * Social providers to offer for linking in Account Settings. better-auth leaves unconfigured
 * providers out entirely and has no route listing them (decision 0006), so the operator
 * names them here, matching the auth service's GITHUB_* / GOOGLE_* settings. Unset: none.
 */
export const socialProviders: readonly string[] = (nonBlank(import.meta.env.VITE_AUTH_SOCIAL_PROVIDERS) ?? "")
  .split(",")
  .map((id) => id.trim().toLowerCase())
  .filter((id) => id.length > 0);
