// Shared helpers of the browser acceptance scripts that sign in for real: launch Debian's
// Chromium, sign in through the UI with a magic link read from the mail catcher (maildev's
// JSON API: GET <mail>/email), and record checks as they pass or fail.
import { chromium } from "playwright-core";

export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** A fresh address nobody has used, so every run signs up a new user. */
export function randomEmail(prefix = "e2e") {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** check(name, ok, detail) collects steps; report() prints them and returns the exit code. */
export function checklist() {
  const steps = [];
  const failures = [];
  return {
    failures,
    check(name, ok, detail = "") {
      steps.push(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` (${detail})` : ""}`);
      if (!ok) failures.push(`${name}${detail ? `: ${detail}` : ""}`);
      return ok;
    },
    report(title) {
      console.log(`# ${title}`);
      for (const step of steps) console.log(step);
      if (failures.length > 0) {
        console.error(`\n${failures.length} check(s) failed:\n- ${failures.join("\n- ")}`);
        return 1;
      }
      console.log(`# all ${steps.length} checks passed`);
      return 0;
    },
  };
}

/** Resolves true when the locator becomes visible in time, false otherwise (no throw). */
export async function visible(locator, timeout) {
  try {
    await locator.waitFor({ state: "visible", timeout });
    return true;
  } catch {
    return false;
  }
}

/** Polls the mail catcher for the newest mail to `email` and returns its magic link. */
export async function magicLinkFor(mailUrl, email, timeoutMs = 30_000) {
  const base = mailUrl.replace(/\/$/, "");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const list = await fetch(`${base}/email`)
      .then((r) => r.json())
      .catch(() => []);
    const mails = list.filter((m) => (m.to ?? []).some((t) => t.address?.toLowerCase() === email.toLowerCase()));
    const mail = mails.at(-1);
    if (mail) {
      const fromText = /(https?:\/\/\S+\/auth\/magic-link\/verify\?[^\s"'<>]+)/.exec(mail.text ?? "")?.[1];
      const fromHtml = /href="([^"]*\/auth\/magic-link\/verify\?[^"]+)"/.exec(mail.html ?? "")?.[1]?.replaceAll("&amp;", "&");
      const link = fromText ?? fromHtml;
      if (link) return link;
      throw new Error(`the mail to ${email} carries no sign-in link: ${mail.text ?? mail.html}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no mail to ${email} in ${base} after ${timeoutMs} ms`);
}

/**
 * Signs in through the UI: opens `startPath` signed out, expects the gate to send the page to
 * /?redirect=<startPath>, sends the link to `email` with the form, opens the mailed link in
 * the same page and waits until the app lands on `startPath` (the saved redirect target).
 * Returns the origin the page is signed in on. Records each step with `check`; throws when a step leaves nothing to continue with.
 */
export async function signInThroughUi(page, { baseUrl, mailUrl, email, startPath, check, timeout = 20_000 }) {
  await page.goto(new URL(startPath, baseUrl).toString(), { waitUntil: "domcontentloaded" });
  const gated = await page
    .waitForURL((url) => url.pathname === "/" && url.searchParams.get("redirect") === startPath, { timeout })
    .then(() => true)
    .catch(() => false);
  check(`signed out, ${startPath} redirects to /?redirect=${encodeURIComponent(startPath)}`, gated, page.url());

  const emailInput = page.getByTestId("sign-in-email");
  if (!check("the sign-in form is shown", await visible(emailInput, timeout))) throw new Error("no sign-in form");
  await emailInput.fill(email);
  const inbox = page.getByTestId("sign-in-check-inbox");
  const refusal = () => page.locator("[data-testid=sign-in-form] [role=alert]").allTextContents().then((t) => t.join(" ")).catch(() => "");
  await page.getByTestId("sign-in-submit").click();
  let sent = await visible(inbox, timeout);
  // The auth service sends at most 5 links a minute per client IP, and the stack test's journeys
  // all come from 127.0.0.1: told to wait, wait out the window and send once more, as a person would.
  if (!sent && /too many requests/i.test(await refusal())) {
    await page.waitForTimeout(61_000);
    await page.getByTestId("sign-in-submit").click();
    sent = await visible(inbox, timeout);
  }
  const sentTo = sent ? ((await page.getByTestId("sign-in-sent-to").textContent()) ?? "") : "";
  // On failure, say why.
  const why = sent ? sentTo : await refusal();
  if (!check("submitting shows 'Check your inbox' with the address", sent && sentTo === email, why)) {
    throw new Error("the sign-in link was not sent");
  }

  const link = await magicLinkFor(mailUrl, email);
  check("the mail catcher has the sign-in link", true, new URL(link).pathname);
  const callback = new URL(link).searchParams.get("callbackURL") ?? "";
  check(`the link's callbackURL is the saved target ${startPath}`, new URL(callback, baseUrl).pathname === startPath, callback);

  await page.goto(link, { waitUntil: "domcontentloaded" });
  const landed = await page
    .waitForURL((url) => url.pathname === startPath, { timeout })
    .then(() => true)
    .catch(() => false);
  if (!check(`following the link in the same page lands on ${startPath}`, landed, page.url())) throw new Error("not signed in");
  const menu = await visible(page.getByTestId("user-menu"), timeout);
  if (!check("the user menu is shown (signed in)", menu)) throw new Error("no user menu after sign-in");
  // The link points at the stack's public URL (the embedded launcher's is http://localhost:<port>),
  // which may be another origin than baseUrl: the session cookie lives there, so later steps
  // must navigate on the origin the page landed on.
  const origin = new URL(page.url()).origin;
  if (origin !== new URL(baseUrl).origin) console.log(`# the sign-in link landed on ${origin}; continuing there`);
  return { origin };
}
