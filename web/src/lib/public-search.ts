// Search params of the public pages. `redirect` carries the URL a signed-out visitor tried
// to open, so sign-in can send them back there (docs/requirements.md "States").
import { z } from "zod";

// A malformed value (e.g. `?redirect=5`, which the router parses as a number) is dropped
// instead of failing the whole page: the param is a convenience, not a requirement.
export const publicSearchSchema = z.object({
  redirect: z.string().optional().catch(undefined),
  /** Set by better-auth when a magic link could not be used (e.g. INVALID_TOKEN). */
  error: z.string().optional().catch(undefined),
});

export type PublicSearch = z.infer<typeof publicSearchSchema>;
