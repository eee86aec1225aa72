import { AppError } from "@transcribe/platform";
import type { FastifyRequest } from "fastify";

/** Whether a user is an administrator: a verified e-mail address listed in ADMIN_EMAILS. */
export function isAdmin(user: { email: string; emailVerified: boolean } | undefined, adminEmails: readonly string[]): boolean {
  if (!user?.emailVerified) return false;
  const email = user.email.trim().toLowerCase();
  return adminEmails.some((admin) => admin.toLowerCase() === email);
}

/**
 * Refuses (403) a signed-in user who is not an administrator; 401 without a session.
 * An administrator's API key is refused too: administration needs the person's session
 * (docs/security.md), so a leaked key cannot download or delete models.
 */
export function requireAdmin(request: FastifyRequest, adminEmails: readonly string[]): void {
  if (!request.user) throw new AppError("unauthenticated", "Not signed in");
  if (request.apiKeyId) throw new AppError("permission_denied", "API keys cannot be used for this route; sign in to the web app instead");
  if (!isAdmin(request.user, adminEmails)) throw new AppError("permission_denied", "Only an administrator can do this (ADMIN_EMAILS)");
}
