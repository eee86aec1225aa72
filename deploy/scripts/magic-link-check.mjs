#!/usr/bin/env node
// Acceptance check of magic-link sign-in against a running embedded stack (`npm start`):
//
//   1. POST /auth/sign-in/magic-link {email, callbackURL: "/dashboard"}
//   2. the mail appears in the mail catcher (GET <mail>/email)
//   3. following its link sets a session cookie (and redirects to /dashboard)
//   4. GET /auth/get-session returns the user; GET /api/v1/me too
//   5. GET /api/v1/me without the cookie is 401
//
// Usage: node deploy/scripts/magic-link-check.mjs [--base http://localhost:8080] [--mail http://127.0.0.1:1080]
// (or BASE_URL / MAIL_URL). Exits 0 when every step passes, 1 otherwise. No dependencies.

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
};
const base = (option("base", process.env.BASE_URL) ?? "http://localhost:8080").replace(/\/$/, "");
const mailUrl = (option("mail", process.env.MAIL_URL) ?? "http://127.0.0.1:1080").replace(/\/$/, "");
const email = option("email", `magic-link-check-${Date.now()}@example.com`);
const timeoutMs = Number(option("timeout", "30000"));

const jar = new Map();
const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
const remember = (response) => {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (value === "" || /max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
};

let step = 0;
const pass = (message) => console.log(`ok ${++step} - ${message}`);
const fail = (message) => {
  console.log(`not ok ${++step} - ${message}`);
  process.exit(1);
};
const expect = (condition, message, detail) => (condition ? pass(message) : fail(`${message}${detail ? `: ${detail}` : ""}`));

async function main() {
  console.log(`# magic link check: ${base} (mail catcher ${mailUrl}), ${email}`);

  const sent = await fetch(`${base}/auth/sign-in/magic-link`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email, callbackURL: "/dashboard" }),
  });
  const sentBody = await sent.text();
  expect(sent.status === 200, "POST /auth/sign-in/magic-link is 200", `${sent.status} ${sentBody}`);

  let mail;
  const deadline = Date.now() + timeoutMs;
  while (!mail && Date.now() < deadline) {
    const list = await fetch(`${mailUrl}/email`).then((r) => r.json()).catch(() => []);
    mail = list.find((m) => (m.to ?? []).some((t) => t.address === email));
    if (!mail) await new Promise((r) => setTimeout(r, 250));
  }
  expect(mail, `the mail to ${email} is in the mail catcher`, `nothing after ${timeoutMs} ms`);
  const link = /(https?:\/\/\S+\/auth\/magic-link\/verify\?\S+)/.exec(mail.text ?? "")?.[1];
  expect(link, "the mail carries the sign-in link (plain-text body)", mail.text);
  expect(/href="[^"]*magic-link\/verify/.test(mail.html ?? ""), "the HTML body links to it too");

  const landed = await fetch(link, { redirect: "manual" });
  remember(landed);
  const location = landed.headers.get("location") ?? "";
  expect(landed.status === 302 && new URL(location, base).pathname === "/dashboard", "following the link redirects to /dashboard", `${landed.status} ${location}`);
  expect([...jar.keys()].some((name) => name.endsWith("better-auth.session_token")), "and sets the session cookie", [...jar.keys()].join(", "));

  const session = await fetch(`${base}/auth/get-session`, { headers: { cookie: cookieHeader() } });
  const sessionBody = await session.json().catch(() => null);
  expect(session.status === 200 && sessionBody?.user?.email === email, "GET /auth/get-session returns the user", JSON.stringify(sessionBody));

  const me = await fetch(`${base}/api/v1/me`, { headers: { cookie: cookieHeader() } });
  const meBody = await me.json().catch(() => null);
  expect(me.status === 200 && meBody?.email === email, "GET /api/v1/me with the cookie returns the user", `${me.status} ${JSON.stringify(meBody)}`);

  const anonymous = await fetch(`${base}/api/v1/me`);
  const anonymousBody = await anonymous.json().catch(() => null);
  expect(
    anonymous.status === 401 && anonymousBody?.error?.code === "unauthenticated",
    "GET /api/v1/me without the cookie is 401",
    `${anonymous.status} ${JSON.stringify(anonymousBody)}`,
  );
  console.log(`# all ${step} checks passed`);
}

main().catch((error) => fail(`unexpected error: ${error?.stack ?? error}`));
