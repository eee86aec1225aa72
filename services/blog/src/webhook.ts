import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** The webhook body (JSON), documented in docs/api.md. */
export const webhookPostSchema = z.object({
  slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/).max(200),
  title: z.string().trim().min(1).max(300),
  subtitle: z.string().max(500).default(""),
  meta_description: z.string().max(500).default(""),
  body_markdown: z.string().max(500_000),
  author: z.string().max(200).default(""),
  cover_image_url: z.url({ protocol: /^https?$/ }).nullish(),
  tags: z.array(z.string().trim().min(1).max(50)).max(20).default([]),
  published_at: z.iso.datetime({ offset: true }).optional(),
});
export type WebhookPost = z.infer<typeof webhookPostSchema>;

export const webhookBodySchema = z.discriminatedUnion("action", [
  z.object({ action: z.enum(["create", "update"]), timestamp: z.union([z.number(), z.iso.datetime({ offset: true })]), post: webhookPostSchema }),
  z.object({
    action: z.literal("unpublish"),
    timestamp: z.union([z.number(), z.iso.datetime({ offset: true })]),
    post: z.object({ slug: z.string().min(1).max(200) }),
  }),
]);
export type WebhookBody = z.infer<typeof webhookBodySchema>;

/** Hex HMAC-SHA256 of the body with the secret: what a sender puts in `signature`. */
export function signWebhookBody(body: string, secret: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("hex");
}

/** Constant-time comparison of the expected and given hex signatures. */
export function signatureMatches(body: string, signature: string, secret: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = Buffer.from(signWebhookBody(body, secret), "hex");
  const given = Buffer.from(signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const signatureHash = (signature: string) => createHash("sha256").update(signature.toLowerCase()).digest("hex");

/** The body's timestamp in milliseconds: unix seconds, unix milliseconds or ISO 8601. */
export function timestampMs(timestamp: number | string): number {
  if (typeof timestamp === "string") return Date.parse(timestamp);
  return timestamp < 1e12 ? timestamp * 1000 : timestamp;
}
