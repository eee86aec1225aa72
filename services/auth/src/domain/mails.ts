import { escapeHtml } from "@transcribe/platform";

/**
 * The mails the auth service asks the notifier to send, rendered here because only
 * the auth service knows what each link does. Pure: no I/O, easy to test.
 */
export type MailKind = "verify-email" | "reset-password" | "confirm-email-change" | "delete-account";

export interface RenderedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  kind: MailKind;
}

const PRODUCT = "Transcribe";

/** One layout for every mail: a sentence, the link as a button and as text, a footnote. */
function render(
  to: string,
  kind: MailKind,
  subject: string,
  lead: string,
  action: string,
  url: string,
  footnote: string,
): RenderedMail {
  const text = `${lead}\n\n${action}: ${url}\n\n${footnote}\n\n— ${PRODUCT}\n`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, sans-serif; color: #111; line-height: 1.5;">
  <p>${escapeHtml(lead)}</p>
  <p><a href="${escapeHtml(url)}" style="display: inline-block; padding: 10px 16px; background: #111; color: #fff; text-decoration: none; border-radius: 6px;">${escapeHtml(action)}</a></p>
  <p style="font-size: 13px; color: #555;">Or open this link: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>
  <p style="font-size: 13px; color: #555;">${escapeHtml(footnote)}</p>
  <p style="font-size: 13px; color: #555;">— ${PRODUCT}</p>
</body></html>
`;
  return { to, subject, text, html, kind };
}

export function verifyEmailMail(to: string, url: string): RenderedMail {
  return render(
    to,
    "verify-email",
    `Verify your e-mail address for ${PRODUCT}`,
    `Please confirm that ${to} is your e-mail address.`,
    "Verify e-mail address",
    url,
    "If you did not ask for this, you can ignore this message.",
  );
}

export function resetPasswordMail(to: string, url: string): RenderedMail {
  return render(
    to,
    "reset-password",
    `Reset your ${PRODUCT} password`,
    "Someone (hopefully you) asked to reset the password of your account.",
    "Choose a new password",
    url,
    "If you did not ask for this, ignore this message: your password stays as it is.",
  );
}

export function confirmEmailChangeMail(to: string, newEmail: string, url: string): RenderedMail {
  return render(
    to,
    "confirm-email-change",
    `Confirm your new e-mail address for ${PRODUCT}`,
    `You asked to change the e-mail address of your account from ${to} to ${newEmail}.`,
    "Confirm the change",
    url,
    "If you did not ask for this, ignore this message and your address stays as it is.",
  );
}

export function deleteAccountMail(to: string, url: string): RenderedMail {
  return render(
    to,
    "delete-account",
    `Confirm the deletion of your ${PRODUCT} account`,
    "You asked to delete your account. Opening the link below deletes it with all your transcripts; this cannot be undone.",
    "Delete my account",
    url,
    "If you did not ask for this, ignore this message: nothing is deleted.",
  );
}
