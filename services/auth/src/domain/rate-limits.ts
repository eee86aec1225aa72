/**
 * Per client address, per endpoint: at most `max` requests in `window` seconds. Beyond
 * that the answer is 429 'Too many requests. Please try again later.' with Retry-After.
 * Generous for a person, tight for a script trying addresses or passwords.
 */
export const authRateLimitRules = {
  "/sign-in/email": { window: 60, max: 5 },
  "/sign-in/social": { window: 60, max: 10 },
  "/sign-in/magic-link": { window: 60, max: 5 },
  "/magic-link/verify": { window: 60, max: 10 },
  "/sign-up/email": { window: 60, max: 5 },
  "/change-password": { window: 60, max: 5 },
  "/set-password": { window: 60, max: 5 },
  "/request-password-reset": { window: 60, max: 3 },
  "/forget-password": { window: 60, max: 3 },
  "/reset-password": { window: 60, max: 5 },
  "/reset-password/*": { window: 60, max: 10 },
  "/send-verification-email": { window: 60, max: 3 },
  "/verify-email": { window: 60, max: 10 },
  "/change-email": { window: 60, max: 5 },
  "/delete-user": { window: 60, max: 5 },
} as const;
