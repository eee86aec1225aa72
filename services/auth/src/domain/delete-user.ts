/**
 * How a deletion request without a token is handled (docs/requirements.md "States", "Roles"):
 * - a password is given: better-auth checks it and deletes at once (or refuses);
 * - the session is fresh (younger than freshAge, or freshAge is 0): deleted at once;
 * - otherwise: a verification e-mail goes out and the link completes the deletion.
 */
export type DeletionPath = "immediate" | "verify-by-email";

export function deletionPath(input: {
  hasPassword: boolean;
  hasToken: boolean;
  sessionCreatedAt: Date;
  freshAgeSeconds: number;
  now: Date;
}): DeletionPath {
  if (input.hasToken || input.hasPassword) return "immediate";
  if (input.freshAgeSeconds === 0) return "immediate";
  const age = input.now.getTime() - input.sessionCreatedAt.getTime();
  return age < input.freshAgeSeconds * 1000 ? "immediate" : "verify-by-email";
}

/** docs/requirements.md "Limits": the deletion token is 32 characters of digits and lowercase letters. */
export const DELETE_TOKEN_LENGTH = 32;
export const DELETE_TOKEN_ALPHABET = ["0-9", "a-z"] as const;

export function deleteAccountIdentifier(token: string): string {
  return `delete-account-${token}`;
}
