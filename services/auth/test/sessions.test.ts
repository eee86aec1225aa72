import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, startAuth } from "./harness.js";

describe("sessions", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  const tokenOf = async (browser: ReturnType<AuthHarness["browser"]>) => (await browser.get("/auth/get-session")).body.session.token as string;

  it("get-session without a cookie is null (not an error)", async () => {
    const response = await h.browser().get("/auth/get-session");
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
  });

  it("get-session accepts disableCookieCache and disableRefresh", async () => {
    const browser = await signInWithMagicLink(h, "s-1@example.com");
    const response = await browser.get("/auth/get-session?disableCookieCache=true&disableRefresh=true");
    expect(response.status).toBe(200);
    expect(response.body.user.email).toBe("s-1@example.com");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("revoke-session ends one of the caller's own sessions", async () => {
    const laptop = await signInWithMagicLink(h, "s-2@example.com");
    const phone = await signInWithMagicLink(h, "s-2@example.com");
    const response = await laptop.post("/auth/revoke-session", { token: await tokenOf(phone) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: true });
    expect((await phone.get("/auth/get-session")).body).toBeNull();
    expect((await laptop.get("/auth/get-session")).body.user.email).toBe("s-2@example.com");
  });

  it("revoking another user's session is UNAUTHORIZED and leaves it alone", async () => {
    const mallory = await signInWithMagicLink(h, "s-mallory@example.com");
    const alice = await signInWithMagicLink(h, "s-alice@example.com");
    const response = await mallory.post("/auth/revoke-session", { token: await tokenOf(alice) });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe("UNAUTHORIZED");
    expect((await alice.get("/auth/get-session")).body.user.email).toBe("s-alice@example.com");
  });

  it("revoking an unknown token is 'Session not found'", async () => {
    const browser = await signInWithMagicLink(h, "s-3@example.com");
    const response = await browser.post("/auth/revoke-session", { token: "no-such-token" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Session not found");
  });

  it("revoke-session without a session is 401", async () => {
    const response = await h.browser().post("/auth/revoke-session", { token: "x" });
    expect(response.status).toBe(401);
  });

  it("revoke-other-sessions keeps the current one", async () => {
    const current = await signInWithMagicLink(h, "s-4@example.com");
    const other = await signInWithMagicLink(h, "s-4@example.com");
    const response = await current.post("/auth/revoke-other-sessions");
    expect(response.body).toEqual({ status: true });
    expect((await other.get("/auth/get-session")).body).toBeNull();
    expect((await current.get("/auth/get-session")).body.user.email).toBe("s-4@example.com");
  });

  it("revoke-sessions ends every session of the user", async () => {
    const one = await signInWithMagicLink(h, "s-5@example.com");
    const two = await signInWithMagicLink(h, "s-5@example.com");
    const response = await one.post("/auth/revoke-sessions");
    expect(response.body).toEqual({ status: true });
    expect((await one.get("/auth/get-session")).body).toBeNull();
    expect((await two.get("/auth/get-session")).body).toBeNull();
  });

  it("list-sessions lists the user's active sessions", async () => {
    const one = await signInWithMagicLink(h, "s-6@example.com");
    await signInWithMagicLink(h, "s-6@example.com");
    const response = await one.get("/auth/list-sessions");
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(2);
  });

  it("sign-out ends the session and clears the cookie", async () => {
    const browser = await signInWithMagicLink(h, "s-7@example.com");
    const token = await tokenOf(browser);
    const response = await browser.post("/auth/sign-out");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    expect(response.setCookie.some((c) => c.includes("session_token=;") && /Max-Age=0/i.test(c))).toBe(true);
    const stale = h.browser();
    stale.cookies.set("__Secure-better-auth.session_token", token);
    expect((await stale.get("/auth/get-session")).body).toBeNull();
  });

  it("a request carrying a cookie but from a foreign origin is refused (CSRF)", async () => {
    const browser = await signInWithMagicLink(h, "s-8@example.com");
    const response = await browser.request("/auth/sign-out", { method: "POST", json: {}, headers: { origin: "https://evil.example" } });
    expect(response.status).toBe(403);
    expect(response.body.message).toBe("Invalid origin");
    expect((await browser.get("/auth/get-session")).body.user.email).toBe("s-8@example.com");
  });
});
