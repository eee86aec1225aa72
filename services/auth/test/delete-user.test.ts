import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, signUpWithPassword, startAuth } from "./harness.js";

describe("delete user", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  const exists = async (email: string) =>
    (await sql<{ n: number }>`select count(*)::int as n from users where email = ${email}`.execute(h.database.db)).rows[0]!.n === 1;
  const ageSessions = (email: string) =>
    sql`update sessions set created_at = now() - interval '2 days'
        where user_id = (select id from users where email = ${email})`.execute(h.database.db);

  it("with a wrong password: refused ('Invalid password') and nothing is deleted", async () => {
    const browser = await signUpWithPassword(h, "d-1@example.com", "long enough pw");
    const response = await browser.post("/auth/delete-user", { password: "not the password" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Invalid password");
    expect(await exists("d-1@example.com")).toBe(true);
    expect((await browser.get("/auth/get-session")).body.user.email).toBe("d-1@example.com");
  });

  it("with the password: deleted at once, even from a stale session, with sessions and accounts", async () => {
    const browser = await signUpWithPassword(h, "d-2@example.com", "long enough pw");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    await ageSessions("d-2@example.com");
    const response = await browser.post("/auth/delete-user", { password: "long enough pw" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: "User deleted" });
    expect(await exists("d-2@example.com")).toBe(false);
    const left = await sql<{ n: number }>`select (select count(*) from sessions where user_id = ${id})
      + (select count(*) from accounts where user_id = ${id}) as n`.execute(h.database.db);
    expect(Number(left.rows[0]!.n)).toBe(0);
    expect((await browser.get("/auth/get-session")).body).toBeNull();
  });

  it("a password for a user without one: 'Credential account not found'", async () => {
    const browser = await signInWithMagicLink(h, "d-3@example.com");
    const response = await browser.post("/auth/delete-user", { password: "anything at all" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Credential account not found");
    expect(await exists("d-3@example.com")).toBe(true);
  });

  it("without a password, from a fresh session: deleted at once", async () => {
    const browser = await signInWithMagicLink(h, "d-4@example.com");
    const response = await browser.post("/auth/delete-user", {});
    expect(response.body).toEqual({ success: true, message: "User deleted" });
    expect(await exists("d-4@example.com")).toBe(false);
  });

  it("without a password, from a stale session: a mailed link (32 chars of [0-9a-z], 24 h) confirms the deletion", async () => {
    const browser = await signInWithMagicLink(h, "d-5@example.com");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    await ageSessions("d-5@example.com");
    const response = await browser.post("/auth/delete-user", { callbackURL: "/goodbye" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: "Verification email sent" });
    expect(await exists("d-5@example.com")).toBe(true);

    const mail = await h.lastMail("d-5@example.com", "delete-account");
    const link = new URL(mail.url);
    expect(link.pathname).toBe("/auth/delete-user/callback");
    expect(link.searchParams.get("callbackURL")).toBe("/goodbye");
    const token = link.searchParams.get("token")!;
    expect(token).toMatch(/^[0-9a-z]{32}$/);
    const row = (
      await sql<{ value: string; expires_at: Date }>`select value, expires_at from verifications
        where identifier = ${`delete-account-${token}`}`.execute(h.database.db)
    ).rows[0]!;
    expect(row.value).toBe(id);
    const lifetime = (row.expires_at.getTime() - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(86_390);
    expect(lifetime).toBeLessThanOrEqual(86_400);

    const confirmed = await browser.open(mail.url);
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("/goodbye");
    expect(await exists("d-5@example.com")).toBe(false);
  });

  it("the callback without callbackURL answers success and message", async () => {
    const browser = await signInWithMagicLink(h, "d-6@example.com");
    await ageSessions("d-6@example.com");
    await browser.post("/auth/delete-user", {});
    const token = new URL((await h.lastMail("d-6@example.com", "delete-account")).url).searchParams.get("token")!;
    const confirmed = await browser.get(`/auth/delete-user/callback?token=${token}`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ success: true, message: "User deleted" });
  });

  it("the callback with a wrong token is 'Invalid token' (404); without a session 'Failed to get user info' (404)", async () => {
    const browser = await signInWithMagicLink(h, "d-7@example.com");
    const wrong = await browser.get("/auth/delete-user/callback?token=00000000000000000000000000000000");
    expect(wrong.status).toBe(404);
    expect(wrong.body.message).toBe("Invalid token");
    const anonymous = await h.browser().get("/auth/delete-user/callback?token=00000000000000000000000000000000");
    expect(anonymous.status).toBe(404);
    expect(anonymous.body.message).toBe("Failed to get user info");
    expect(await exists("d-7@example.com")).toBe(true);
  });

  it("a token mailed to one user cannot delete another", async () => {
    const victim = await signInWithMagicLink(h, "d-8@example.com");
    await ageSessions("d-8@example.com");
    await victim.post("/auth/delete-user", {});
    const url = (await h.lastMail("d-8@example.com", "delete-account")).url;
    const other = await signInWithMagicLink(h, "d-9@example.com");
    const response = await other.open(url);
    expect(response.status).toBe(404);
    expect(await exists("d-8@example.com")).toBe(true);
    expect(await exists("d-9@example.com")).toBe(true);
  });

  it("needs a session", async () => {
    expect((await h.browser().post("/auth/delete-user", {})).status).toBe(401);
  });
});

describe("delete user configuration", () => {
  it("switched off: 404 with no message, nothing deleted", async () => {
    const h = await startAuth({ AUTH_DELETE_USER_ENABLED: "false" });
    try {
      const browser = await signInWithMagicLink(h, "off@example.com");
      const response = await browser.post("/auth/delete-user", {});
      expect(response.status).toBe(404);
      expect(response.body?.message).toBeUndefined();
      expect((await browser.get("/auth/get-session")).body.user.email).toBe("off@example.com");
    } finally {
      await h.close();
    }
  });

  it("AUTH_DELETE_TOKEN_EXPIRES_IN sets the token lifetime; AUTH_FRESH_AGE=0 deletes without a mail", async () => {
    const h = await startAuth({ AUTH_DELETE_TOKEN_EXPIRES_IN: "600", AUTH_FRESH_AGE: "60" });
    try {
      const browser = await signInWithMagicLink(h, "short@example.com");
      await sql`update sessions set created_at = now() - interval '2 minutes'`.execute(h.database.db);
      expect((await browser.post("/auth/delete-user", {})).body.message).toBe("Verification email sent");
      const rows = await sql<{ expires_at: Date }>`select expires_at from verifications where identifier like 'delete-account-%'`.execute(h.database.db);
      const lifetime = (rows.rows[0]!.expires_at.getTime() - Date.now()) / 1000;
      expect(lifetime).toBeGreaterThan(590);
      expect(lifetime).toBeLessThanOrEqual(600);
    } finally {
      await h.close();
    }
    const never = await startAuth({ AUTH_FRESH_AGE: "0" });
    try {
      const browser = await signInWithMagicLink(never, "never-stale@example.com");
      await sql`update sessions set created_at = now() - interval '300 days'`.execute(never.database.db);
      expect((await browser.post("/auth/delete-user", {})).body.message).toBe("User deleted");
    } finally {
      await never.close();
    }
  });
});
