import { createHash } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, startAuth } from "./harness.js";

const sha256url = (value: string) => createHash("sha256").update(value).digest("base64url");

describe("magic link sign-in", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  it("mails a link (SendMagicLink to the notifier) and stores only a hash of its token, for 5 minutes", async () => {
    const browser = h.browser();
    const response = await browser.post("/auth/sign-in/magic-link", { email: "ml-1@example.com", callbackURL: "/dashboard" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: true });

    const mail = await h.lastMail("ml-1@example.com", "magic-link");
    expect(mail.type).toBe("SendMagicLink");
    const link = new URL(mail.url);
    expect(link.origin + link.pathname).toBe(`${h.baseUrl}/auth/magic-link/verify`);
    expect(link.searchParams.get("callbackURL")).toBe("/dashboard");
    const token = link.searchParams.get("token")!;
    expect(token).toMatch(/^[A-Za-z]{32}$/);

    const rows = await sql<{ identifier: string; expires_at: Date }>`
      select identifier, expires_at from verifications where identifier like 'magic-link:%'`.execute(h.database.db);
    const row = rows.rows.find((r) => r.identifier === `magic-link:${sha256url(token)}`);
    expect(row, "the stored identifier is the token's SHA-256").toBeDefined();
    expect(rows.rows.some((r) => r.identifier.includes(token))).toBe(false);
    const lifetime = (row!.expires_at.getTime() - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(290);
    expect(lifetime).toBeLessThanOrEqual(300);
  });

  it("following the link creates the user (verified), sets an HttpOnly SameSite=Lax Secure cookie and redirects to callbackURL", async () => {
    const browser = h.browser();
    await browser.post("/auth/sign-in/magic-link", { email: "ml-2@example.com", callbackURL: "/dashboard" });
    const mail = await h.lastMail("ml-2@example.com");
    const landed = await browser.open(mail.url);
    expect(landed.status).toBe(302);
    expect(landed.headers.get("location")).toBe(`${h.baseUrl}/dashboard`);
    const cookie = landed.setCookie.find((c) => c.includes("session_token"))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Secure/i);

    const session = await browser.get("/auth/get-session");
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ email: "ml-2@example.com", emailVerified: true });
  });

  it("refuses a link used twice: the second visit gets error=INVALID_TOKEN and no session", async () => {
    const first = h.browser();
    await first.post("/auth/sign-in/magic-link", { email: "ml-3@example.com", callbackURL: "/dashboard" });
    const mail = await h.lastMail("ml-3@example.com");
    expect((await first.open(mail.url)).status).toBe(302);

    const second = h.browser();
    const again = await second.open(mail.url);
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe(`${h.baseUrl}/dashboard?error=INVALID_TOKEN`);
    expect(again.setCookie.some((c) => c.includes("session_token"))).toBe(false);
    expect((await second.get("/auth/get-session")).body).toBeNull();
  });

  it("refuses an expired link", async () => {
    const browser = h.browser();
    await browser.post("/auth/sign-in/magic-link", { email: "ml-4@example.com", callbackURL: "/dashboard" });
    const mail = await h.lastMail("ml-4@example.com");
    const token = new URL(mail.url).searchParams.get("token")!;
    await sql`update verifications set expires_at = now() - interval '1 second'
              where identifier = ${`magic-link:${sha256url(token)}`}`.execute(h.database.db);
    const landed = await browser.open(mail.url);
    expect(landed.headers.get("location")).toBe(`${h.baseUrl}/dashboard?error=INVALID_TOKEN`);
    expect((await browser.get("/auth/get-session")).body).toBeNull();
  });

  it("signs an existing user in again without creating a second user", async () => {
    await signInWithMagicLink(h, "ml-5@example.com");
    const browser = await signInWithMagicLink(h, "ml-5@example.com");
    const session = await browser.get("/auth/get-session");
    expect(session.body.user.email).toBe("ml-5@example.com");
    const users = await sql<{ n: number }>`select count(*)::int as n from users where email = 'ml-5@example.com'`.execute(h.database.db);
    expect(users.rows[0]!.n).toBe(1);
  });

  it("never redirects to another origin: a foreign callbackURL is refused and no mail is sent", async () => {
    const response = await h.browser().post("/auth/sign-in/magic-link", { email: "ml-6@example.com", callbackURL: "https://evil.example/x" });
    expect(response.status).toBe(403);
    expect(response.body.message).toBe("Invalid callbackURL");
    expect(await h.mails("ml-6@example.com")).toEqual([]);
  });

  it("refuses an invalid e-mail address", async () => {
    const response = await h.browser().post("/auth/sign-in/magic-link", { email: "not-an-email", callbackURL: "/dashboard" });
    expect(response.status).toBe(400);
  });
});

describe("magic link lifetime is configurable", () => {
  it("AUTH_MAGIC_LINK_EXPIRES_IN sets the token's expiry", async () => {
    const h = await startAuth({ AUTH_MAGIC_LINK_EXPIRES_IN: "60" });
    try {
      await h.browser().post("/auth/sign-in/magic-link", { email: "short@example.com", callbackURL: "/" });
      const rows = await sql<{ expires_at: Date }>`select expires_at from verifications`.execute(h.database.db);
      const lifetime = (rows.rows[0]!.expires_at.getTime() - Date.now()) / 1000;
      expect(lifetime).toBeGreaterThan(50);
      expect(lifetime).toBeLessThanOrEqual(60);
    } finally {
      await h.close();
    }
  });
});

describe("cookies in development", () => {
  it("are HttpOnly and SameSite=Lax but not Secure (http://localhost)", async () => {
    const h = await startAuth({ NODE_ENV: "development" });
    try {
      const browser = h.browser();
      await browser.post("/auth/sign-in/magic-link", { email: "dev@example.com", callbackURL: "/" });
      const landed = await browser.open((await h.lastMail("dev@example.com")).url);
      const cookie = landed.setCookie.find((c) => c.includes("session_token"))!;
      expect(cookie).toMatch(/^better-auth\.session_token=/);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).not.toMatch(/Secure/i);
    } finally {
      await h.close();
    }
  });
});
