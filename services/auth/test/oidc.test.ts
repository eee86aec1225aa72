import { freePort } from "@transcribe/platform/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, type Browser, signInWithMagicLink, signUpWithPassword, startAuth } from "./harness.js";
import { startOidcProvider } from "./oidc-provider.js";

/**
 * Account linking, provider tokens and account info against a real OpenID Connect
 * provider running in the test (oidc-provider), configured as the product's generic
 * OIDC provider (AUTH_OIDC_*): the same code path GitHub and Google take.
 */
describe("social accounts with a real OpenID Connect provider", () => {
  let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
  let h: AuthHarness;
  /** Alice: a password account plus the linked provider account (from the first test on). */
  let alice: Browser;
  /** An ID token the provider issued for Alice, kept for the idToken linking tests. */
  let aliceIdToken = "";
  let aliceAccessToken = "";

  beforeAll(async () => {
    const port = await freePort();
    oidc = await startOidcProvider({
      clientId: "transcribe",
      clientSecret: "transcribe-secret",
      redirectUri: `http://127.0.0.1:${port}/auth/callback/oidc`,
    });
    h = await startAuth(
      {
        AUTH_OIDC_DISCOVERY_URL: oidc.discoveryUrl,
        AUTH_OIDC_CLIENT_ID: "transcribe",
        AUTH_OIDC_CLIENT_SECRET: "transcribe-secret",
      },
      { port },
    );
  });
  afterAll(async () => {
    await h?.close();
    await oidc?.close();
  });

  /** link-social → the provider (login, consent) → /auth/callback/oidc → callbackURL. */
  async function link(browser: Browser, sub: string, callbackURL = "/account") {
    oidc.signInAs(sub);
    const started = await browser.post("/auth/link-social", { provider: "oidc", callbackURL, disableRedirect: true });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body.redirect).toBe(false);
    const authorizeUrl = new URL(started.body.url);
    expect(authorizeUrl.origin).toBe(oidc.issuer);
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${h.baseUrl}/auth/callback/oidc`);
    const back = await oidc.authorize(started.body.url, h.baseUrl);
    return browser.open(back);
  }

  const oidcAccount = async (browser: Browser) =>
    ((await browser.get("/auth/list-accounts")).body as Array<{ id: string; providerId: string; scopes: string[] }>).find(
      (a) => a.providerId === "oidc",
    )!;

  it("link-social links the provider account; list-accounts shows it with its scopes", async () => {
    oidc.addAccount("alice", { email: "alice@example.com", name: "Alice Example" });
    const browser = await signUpWithPassword(h, "alice@example.com");
    alice = browser;
    const landed = await link(browser, "alice");
    expect(landed.status).toBe(302);
    expect(new URL(landed.headers.get("location")!, h.baseUrl).toString()).toBe(`${h.baseUrl}/account`);

    const accounts = (await browser.get("/auth/list-accounts")).body;
    expect(accounts.map((a: { providerId: string }) => a.providerId).sort()).toEqual(["credential", "oidc"]);
    const account = await oidcAccount(browser);
    expect(account).toMatchObject({ accountId: "alice" });
    expect(account.scopes).toEqual(expect.arrayContaining(["openid", "email", "profile"]));
  });

  it("get-access-token returns the provider's access token (stored encrypted) with its expiry and scopes", async () => {
    const browser = alice;
    const account = await oidcAccount(browser);
    const response = await browser.post("/auth/get-access-token", { accountId: account.id });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.accessToken).toEqual(expect.any(String));
    expect(new Date(response.body.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now());
    expect(response.body.scopes).toEqual(expect.arrayContaining(["openid"]));
    expect(response.body.idToken).toEqual(expect.any(String));
    aliceIdToken = response.body.idToken;
    const stored = await sql<{ access_token: string }>`select access_token from accounts where id = ${account.id}`.execute(h.database.db);
    expect(stored.rows[0]!.access_token).not.toBe(response.body.accessToken);
  });

  it("account-info returns the provider's user info", async () => {
    const browser = alice;
    const account = await oidcAccount(browser);
    const response = await browser.get(`/auth/account-info?accountId=${account.id}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.user).toMatchObject({ email: "alice@example.com", name: "Alice Example", emailVerified: true });
    expect(response.body.data).toMatchObject({ sub: "alice" });
  });

  it("refresh-token gets a new token set from the provider", async () => {
    const browser = alice;
    const account = await oidcAccount(browser);
    const before = (await browser.post("/auth/get-access-token", { accountId: account.id })).body.accessToken;
    const refreshed = await browser.post("/auth/refresh-token", { accountId: account.id });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.body.accessToken).toEqual(expect.any(String));
    expect(refreshed.body.accessToken).not.toBe(before);
    expect(refreshed.body.refreshToken).toEqual(expect.any(String));
    expect(refreshed.body).toMatchObject({ providerId: "oidc", accountId: account.id });
    const after = (await browser.post("/auth/get-access-token", { accountId: account.id })).body.accessToken;
    expect(after).toBe(refreshed.body.accessToken);
  });

  it("get-access-token refreshes by itself when the token expires within 5 s", async () => {
    const browser = alice;
    const account = await oidcAccount(browser);
    const before = (await browser.post("/auth/get-access-token", { accountId: account.id })).body.accessToken;
    await sql`update accounts set access_token_expires_at = now() + interval '3 seconds' where id = ${account.id}`.execute(h.database.db);
    const response = await browser.post("/auth/get-access-token", { accountId: account.id });
    expect(response.body.accessToken).not.toBe(before);
    expect(new Date(response.body.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now() + 60_000);
  });

  it("on the server, get-access-token takes a userId instead of a session", async () => {
    const browser = alice;
    const account = await oidcAccount(browser);
    const userId = (await browser.get("/auth/get-session")).body.user.id;
    const tokens = await h.auth.api.getAccessToken({ body: { accountId: account.id, userId } });
    expect(tokens.accessToken).toEqual(expect.any(String));
  });

  it("unlink-account removes the provider account while another remains", async () => {
    const browser = alice;
    const account = await oidcAccount(browser);
    aliceAccessToken = (await browser.post("/auth/get-access-token", { accountId: account.id })).body.accessToken;
    const response = await browser.post("/auth/unlink-account", { accountId: account.id });
    expect(response.body).toEqual({ status: true });
    expect((await browser.get("/auth/list-accounts")).body.map((a: { providerId: string }) => a.providerId)).toEqual(["credential"]);
  });

  /** link-social with an ID token, as a native or one-tap client would (the nonce is the one in the token). */
  const idToken = () => {
    const payload = JSON.parse(Buffer.from(aliceIdToken.split(".")[1]!, "base64url").toString("utf8")) as { nonce?: string };
    return { token: aliceIdToken, accessToken: aliceAccessToken, ...(payload.nonce ? { nonce: payload.nonce } : {}) };
  };

  it("link-social with an ID token but no way to read the user's info: 'Failed to get user info' (401)", async () => {
    const browser = await signInWithMagicLink(h, "erin@example.com");
    const { accessToken: _, ...withoutAccessToken } = idToken();
    const response = await browser.post("/auth/link-social", { provider: "oidc", idToken: withoutAccessToken });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe("Failed to get user info");
  });

  it("link-social with an ID token for another e-mail address: 'Account not linked - different emails not allowed' (401)", async () => {
    const browser = await signInWithMagicLink(h, "erin@example.com");
    const response = await browser.post("/auth/link-social", { provider: "oidc", idToken: idToken() });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe("Account not linked - different emails not allowed");
  });

  it("link-social with a forged ID token: 'Invalid token' (401)", async () => {
    const browser = await signInWithMagicLink(h, "erin@example.com");
    const forged = `${aliceIdToken.split(".").slice(0, 2).join(".")}.c2lnbmF0dXJl`;
    const response = await browser.post("/auth/link-social", { provider: "oidc", idToken: { token: forged, nonce: idToken().nonce } });
    expect(response.status).toBe(401);
    expect(response.body.message).toBe("Invalid token");
  });

  it("link-social with Alice's own ID token links the provider account again", async () => {
    const response = await alice.post("/auth/link-social", { provider: "oidc", idToken: idToken() });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ url: "", status: true, redirect: false });
    expect((await alice.get("/auth/list-accounts")).body.map((a: { providerId: string }) => a.providerId).sort()).toEqual(["credential", "oidc"]);
  });

  it("with account linking switched off: 'Account not linked - linking not allowed' (401)", async () => {
    const off = await startAuth({
      AUTH_OIDC_DISCOVERY_URL: oidc.discoveryUrl,
      AUTH_OIDC_CLIENT_ID: "transcribe",
      AUTH_OIDC_CLIENT_SECRET: "transcribe-secret",
      AUTH_ACCOUNT_LINKING_ENABLED: "false",
    });
    try {
      const browser = await signInWithMagicLink(off, "alice@example.com");
      const response = await browser.post("/auth/link-social", { provider: "oidc", idToken: idToken() });
      expect(response.status).toBe(401);
      expect(response.body.message).toBe("Account not linked - linking not allowed");
    } finally {
      await off.close();
    }
  });

  it("the only account cannot be unlinked: 'You can't unlink your last account'", async () => {
    oidc.addAccount("bob", { email: "bob@example.com", name: "Bob" });
    const browser = await signInWithMagicLink(h, "bob@example.com");
    await link(browser, "bob");
    const account = await oidcAccount(browser);
    const response = await browser.post("/auth/unlink-account", { accountId: account.id });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("You can't unlink your last account");
    expect((await browser.get("/auth/list-accounts")).body).toHaveLength(1);
  });

  it("a provider account with another e-mail address is not linked", async () => {
    oidc.addAccount("carol-elsewhere", { email: "carol@elsewhere.example", name: "Carol" });
    const browser = await signInWithMagicLink(h, "carol@example.com");
    const landed = await link(browser, "carol-elsewhere");
    expect(landed.status).toBe(302);
    expect(landed.headers.get("location")).toContain("error=");
    expect((await browser.get("/auth/list-accounts")).body).toEqual([]);
  });

  it("signing in with the provider signs the linked user in", async () => {
    oidc.addAccount("dave", { email: "dave@example.com", name: "Dave" });
    const linked = await signInWithMagicLink(h, "dave@example.com");
    await link(linked, "dave");
    const browser = h.browser();
    oidc.signInAs("dave");
    const started = await browser.post("/auth/sign-in/social", { provider: "oidc", callbackURL: "/dashboard", disableRedirect: true });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const landed = await browser.open(await oidc.authorize(started.body.url, h.baseUrl));
    expect(new URL(landed.headers.get("location")!, h.baseUrl).toString()).toBe(`${h.baseUrl}/dashboard`);
    expect((await browser.get("/auth/get-session")).body.user.email).toBe("dave@example.com");
  });
});
