import { escapeHtml } from "@transcribe/platform";
/** One outgoing mail, as the notifier sends and logs it. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What it is for: "magic-link", "verify-email", "reset-password", ... */
  kind: string;
  /** The sender of a support or contact message: replies go to them. */
  replyTo?: string;
}

const PRODUCT = "Transcribe";

/** The sign-in mail for a SendMagicLink command (the only mail the notifier writes itself). */
export function magicLinkMail(to: string, url: string): OutgoingMail {
  const subject = `Sign in to ${PRODUCT}`;
  const text = `Use this link to sign in to ${PRODUCT}:\n\n${url}\n\nThe link works once and expires in a few minutes. If you did not ask for it, ignore this message.\n\n— ${PRODUCT}\n`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, sans-serif; color: #111; line-height: 1.5;">
  <p>Use the button below to sign in to ${PRODUCT}.</p>
  <p><a href="${escapeHtml(url)}" style="display: inline-block; padding: 10px 16px; background: #111; color: #fff; text-decoration: none; border-radius: 6px;">Sign in</a></p>
  <p style="font-size: 13px; color: #555;">Or open this link: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>
  <p style="font-size: 13px; color: #555;">The link works once and expires in a few minutes. If you did not ask for it, ignore this message.</p>
  <p style="font-size: 13px; color: #555;">— ${PRODUCT}</p>
</body></html>
`;
  return { to, subject, text, html, kind: "magic-link" };
}

/** A stable Message-ID per command, so a mail sent twice (at-least-once) is recognisably the same mail. */
export function messageIdFor(eventId: string, from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? "transcribe.local";
  return `<${eventId}@${domain}>`;
}
