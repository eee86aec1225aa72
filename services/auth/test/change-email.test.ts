import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, signUpWithPassword, startAuth } from "./harness.js";

describe("change e-mail", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  const emailOf = async (id: string) =>
    (await sql<{ email: string; email_verified: boolean }>`select email, email_verified from users where id = ${id}`.execute(h.database.db)).rows[0];

  it("unverified address: applied at once, and a verification mail goes to the new address", async () => {
    const browser = await signUpWithPassword(h, "ce-1@example.com");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    const response = await browser.post("/auth/change-email", { newEmail: "CE-1-New@Example.com", callbackURL: "/account" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: true });
    expect(await emailOf(id)).toEqual({ email: "ce-1-new@example.com", email_verified: false });
    const mail = await h.lastMail("ce-1-new@example.com", "verify-email");
    await h.browser().open(mail.url);
    expect(await emailOf(id)).toEqual({ email: "ce-1-new@example.com", email_verified: true });
  });

  it("verified address: a confirmation goes to the current address first; then the new one is verified; then it changes", async () => {
    const browser = await signInWithMagicLink(h, "ce-2@example.com");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    const response = await browser.post("/auth/change-email", { newEmail: "ce-2-new@example.com", callbackURL: "/account" });
    expect(response.body).toEqual({ status: true });
    expect((await emailOf(id))!.email).toBe("ce-2@example.com");

    const confirmation = await h.lastMail("ce-2@example.com", "confirm-email-change");
    expect(confirmation.text).toContain("ce-2-new@example.com");
    expect((await browser.open(confirmation.url)).status).toBe(302);
    expect((await emailOf(id))!.email).toBe("ce-2@example.com");

    const verification = await h.lastMail("ce-2-new@example.com", "verify-email");
    expect((await browser.open(verification.url)).status).toBe(302);
    expect(await emailOf(id)).toEqual({ email: "ce-2-new@example.com", email_verified: true });
    expect((await browser.get("/auth/get-session")).body.user.email).toBe("ce-2-new@example.com");
  });

  it("the same address is refused: 'Email is the same'", async () => {
    const browser = await signInWithMagicLink(h, "ce-3@example.com");
    const response = await browser.post("/auth/change-email", { newEmail: "CE-3@example.com" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Email is the same");
  });

  it("an address another user owns is refused: 'Couldn't update your email'", async () => {
    await signInWithMagicLink(h, "ce-taken@example.com");
    const browser = await signInWithMagicLink(h, "ce-4@example.com");
    const response = await browser.post("/auth/change-email", { newEmail: "ce-taken@example.com" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Couldn't update your email");
    expect(await h.mails("ce-taken@example.com")).toHaveLength(1); // only its own magic link
  });

  it("an invalid address is refused and nothing changes", async () => {
    const browser = await signInWithMagicLink(h, "ce-5@example.com");
    const response = await browser.post("/auth/change-email", { newEmail: "not an address" });
    expect(response.status).toBe(400);
  });

  it("needs a session", async () => {
    const response = await h.browser().post("/auth/change-email", { newEmail: "x@example.com" });
    expect(response.status).toBe(401);
  });
});

describe("change e-mail switched off", () => {
  it("is refused: 'Change email is disabled'", async () => {
    const h = await startAuth({ AUTH_CHANGE_EMAIL_ENABLED: "false" });
    try {
      const browser = await signInWithMagicLink(h, "off@example.com");
      const response = await browser.post("/auth/change-email", { newEmail: "new@example.com" });
      expect(response.status).toBe(400);
      expect(response.body.message).toBe("Change email is disabled");
    } finally {
      await h.close();
    }
  });
});
