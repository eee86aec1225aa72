import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, signUpWithPassword, startAuth } from "./harness.js";

describe("e-mail and password", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ AUTH_MIN_PASSWORD_LENGTH: "10", AUTH_MAX_PASSWORD_LENGTH: "20" });
  });
  afterAll(() => h?.close());

  it("sign-up refuses passwords outside the configured length: 'Password too short' / 'Password too long'", async () => {
    const short = await h.browser().post("/auth/sign-up/email", { email: "p-1@example.com", password: "123456789", name: "P" });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe("Password too short");
    const long = await h.browser().post("/auth/sign-up/email", { email: "p-1@example.com", password: "x".repeat(21), name: "P" });
    expect(long.status).toBe(400);
    expect(long.body.message).toBe("Password too long");
  });

  it("sign-up signs in, sends a verification mail, and refuses the same address twice (422)", async () => {
    const browser = await signUpWithPassword(h, "p-2@example.com", "long enough pw");
    expect((await browser.get("/auth/get-session")).body.user).toMatchObject({ email: "p-2@example.com", emailVerified: false });
    const mail = await h.lastMail("p-2@example.com", "verify-email");
    expect(mail.url).toContain(`${h.baseUrl}/auth/verify-email?token=`);
    expect(mail.html).toContain("Verify e-mail address");

    const again = await h.browser().post("/auth/sign-up/email", { email: "p-2@example.com", password: "long enough pw", name: "P" });
    expect(again.status).toBe(422);
    expect(again.body.message).toBe("User already exists. Use another email.");
  });

  it("sign-in: right password → session; wrong one → 'Invalid email or password'; bad address → 'Invalid email'", async () => {
    await signUpWithPassword(h, "p-3@example.com", "long enough pw");
    const ok = h.browser();
    const signedIn = await ok.post("/auth/sign-in/email", { email: "p-3@example.com", password: "long enough pw" });
    expect(signedIn.status).toBe(200);
    expect((await ok.get("/auth/get-session")).body.user.email).toBe("p-3@example.com");

    const wrong = await h.browser().post("/auth/sign-in/email", { email: "p-3@example.com", password: "wrong password!" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe("Invalid email or password");
    const unknown = await h.browser().post("/auth/sign-in/email", { email: "nobody@example.com", password: "wrong password!" });
    expect(unknown.body.message).toBe("Invalid email or password");
  });

  it("verify-email marks the address verified and redirects to callbackURL; a bad token is 'Invalid token'", async () => {
    await signUpWithPassword(h, "p-4@example.com", "long enough pw");
    const mail = await h.lastMail("p-4@example.com", "verify-email");
    const browser = h.browser();
    const landed = await browser.open(mail.url);
    expect(landed.status).toBe(302);
    expect((await browser.get("/auth/get-session")).body.user.emailVerified).toBe(true);

    const bad = await h.browser().get("/auth/verify-email?token=garbage");
    expect(bad.status).toBe(401);
    expect(bad.body.message).toBe("Invalid token");
  });

  it("send-verification-email sends the mail again", async () => {
    const browser = await signUpWithPassword(h, "p-5@example.com", "long enough pw");
    const before = (await h.mails("p-5@example.com")).length;
    const response = await browser.post("/auth/send-verification-email", { email: "p-5@example.com", callbackURL: "/dashboard" });
    expect(response.body).toEqual({ status: true });
    expect((await h.mails("p-5@example.com")).length).toBe(before + 1);
  });

  it("change-password: wrong current password → 'Invalid password'; right → new token when revoking other sessions", async () => {
    const browser = await signUpWithPassword(h, "p-6@example.com", "long enough pw");
    const other = h.browser();
    await other.post("/auth/sign-in/email", { email: "p-6@example.com", password: "long enough pw" });

    const wrong = await browser.post("/auth/change-password", { currentPassword: "not it at all", newPassword: "brand new pass" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Invalid password");
    const short = await browser.post("/auth/change-password", { currentPassword: "long enough pw", newPassword: "short" });
    expect(short.body.message).toBe("Password too short");

    const changed = await browser.post("/auth/change-password", {
      currentPassword: "long enough pw",
      newPassword: "brand new pass",
      revokeOtherSessions: true,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.token).toEqual(expect.any(String));
    expect(Object.keys(changed.body.user).sort()).toEqual(["createdAt", "email", "emailVerified", "id", "image", "name", "updatedAt"]);
    expect((await other.get("/auth/get-session")).body).toBeNull();
    // The browser got the new session's cookie.
    expect((await browser.get("/auth/get-session")).body.session.token).toBe(changed.body.token);

    const keep = await browser.post("/auth/change-password", { currentPassword: "brand new pass", newPassword: "another new pw" });
    expect(keep.body.token).toBeNull();
    const signIn = await h.browser().post("/auth/sign-in/email", { email: "p-6@example.com", password: "another new pw" });
    expect(signIn.status).toBe(200);
  });

  it("change-password without a password account is 'Credential account not found'", async () => {
    const browser = await signInWithMagicLink(h, "p-7@example.com");
    const response = await browser.post("/auth/change-password", { currentPassword: "whatever long", newPassword: "brand new pass" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Credential account not found");
  });

  it("set-password is server-only: absent over HTTP; on the server it sets once, then 'user already has a password'", async () => {
    const browser = await signInWithMagicLink(h, "p-8@example.com");
    const overHttp = await browser.post("/auth/set-password", { newPassword: "brand new pass" });
    expect(overHttp.status).toBe(404);

    const headers = new Headers({ cookie: browser.cookieHeader() });
    const first = await h.auth.api.setPassword({ headers, body: { newPassword: "brand new pass" } });
    expect(first).toEqual({ status: true });
    await expect(h.auth.api.setPassword({ headers, body: { newPassword: "other new pass" } })).rejects.toMatchObject({
      statusCode: 400,
      body: expect.objectContaining({ message: "user already has a password" }),
    });
    const signIn = await h.browser().post("/auth/sign-in/email", { email: "p-8@example.com", password: "brand new pass" });
    expect(signIn.status).toBe(200);
  });

  for (const path of ["/auth/request-password-reset", "/auth/forget-password"]) {
    it(`${path} → mail → reset-password: new password works, old sessions end, the token works once`, async () => {
      const email = `p-reset${path.length}@example.com`;
      const old = await signUpWithPassword(h, email, "long enough pw");
      const response = await h.browser().post(path, { email, redirectTo: "/reset" });
      expect(response.status).toBe(200);
      expect(response.body, JSON.stringify(response.body)).toMatchObject({ status: true });

      const mail = await h.lastMail(email, "reset-password");
      const callback = await h.browser().open(mail.url);
      expect(callback.status).toBe(302);
      const location = new URL(callback.headers.get("location")!, h.baseUrl);
      expect(location.pathname).toBe("/reset");
      const token = location.searchParams.get("token")!;

      const reset = await h.browser().post("/auth/reset-password", { token, newPassword: "reset password!" });
      expect(reset.body).toEqual({ status: true });
      expect((await old.get("/auth/get-session")).body).toBeNull();
      expect((await h.browser().post("/auth/sign-in/email", { email, password: "reset password!" })).status).toBe(200);

      const again = await h.browser().post("/auth/reset-password", { token, newPassword: "another reset!" });
      expect(again.status).toBe(400);
      expect(again.body.message).toBe("Invalid token");
    });
  }

  it("request-password-reset answers the same for an unknown address and sends nothing", async () => {
    const response = await h.browser().post("/auth/request-password-reset", { email: "ghost@example.com" });
    expect(response.status).toBe(200);
    expect(await h.mails("ghost@example.com")).toEqual([]);
  });
});

describe("with AUTH_REQUIRE_EMAIL_VERIFICATION", () => {
  it("password sign-in is refused until the address is verified: 'Email not verified'", async () => {
    const h = await startAuth({ AUTH_REQUIRE_EMAIL_VERIFICATION: "true" });
    try {
      const signUp = await h.browser().post("/auth/sign-up/email", { email: "rv@example.com", password: "long enough pw", name: "R" });
      expect(signUp.status).toBe(200);
      const refused = await h.browser().post("/auth/sign-in/email", { email: "rv@example.com", password: "long enough pw" });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("Email not verified");
      await h.browser().open((await h.lastMail("rv@example.com", "verify-email")).url);
      const allowed = await h.browser().post("/auth/sign-in/email", { email: "rv@example.com", password: "long enough pw" });
      expect(allowed.status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
