import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, signUpWithPassword, startAuth } from "./harness.js";

describe("accounts without a social provider", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  it("list-accounts lists the password account with its fields and scopes", async () => {
    const browser = await signUpWithPassword(h, "a-1@example.com");
    const response = await browser.get("/auth/list-accounts");
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1);
    expect(response.body[0]).toMatchObject({ providerId: "credential", scopes: [] });
    for (const field of ["id", "accountId", "createdAt", "updatedAt", "userId"]) expect(response.body[0]).toHaveProperty(field);
    expect(response.body[0]).not.toHaveProperty("password");
  });

  it("a magic-link user has no account rows", async () => {
    const browser = await signInWithMagicLink(h, "a-2@example.com");
    expect((await browser.get("/auth/list-accounts")).body).toEqual([]);
  });

  it("unlinking the last account is refused: 'You can't unlink your last account'", async () => {
    const browser = await signUpWithPassword(h, "a-3@example.com");
    const [account] = (await browser.get("/auth/list-accounts")).body;
    const response = await browser.post("/auth/unlink-account", { accountId: account.id });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("You can't unlink your last account");
    expect((await browser.get("/auth/list-accounts")).body).toHaveLength(1);
  });

  it("get-access-token and account-info need a session over HTTP; the server needs a userId or a session", async () => {
    expect((await h.browser().post("/auth/get-access-token", { accountId: "x" })).status).toBe(401);
    await expect(h.auth.api.getAccessToken({ body: { accountId: "x" } })).rejects.toMatchObject({
      statusCode: 400,
      body: expect.objectContaining({ message: "Either userId or session is required" }),
    });
  });

  it("a token for an account that is not the user's is 'Account not found'", async () => {
    const browser = await signUpWithPassword(h, "a-4@example.com");
    const response = await browser.post("/auth/get-access-token", { accountId: "not-mine" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Account not found");
  });

  it("a token for the password account: 'Provider credential is not supported or not found'", async () => {
    const browser = await signUpWithPassword(h, "a-5@example.com");
    const [account] = (await browser.get("/auth/list-accounts")).body;
    const response = await browser.post("/auth/get-access-token", { accountId: account.id });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Provider credential is not supported or not found");
    const refresh = await browser.post("/auth/refresh-token", { accountId: account.id });
    expect(refresh.body.message).toBe("Provider credential is not supported or not found");
  });

  it("linking a provider that is not configured is 'Provider not found' (404)", async () => {
    const browser = await signInWithMagicLink(h, "a-6@example.com");
    const response = await browser.post("/auth/link-social", { provider: "google", callbackURL: "/account" });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe("Provider not found");
  });
});

describe("fresh sessions", () => {
  it("unlink-account from a session older than freshAge is 'Session is not fresh' (403)", async () => {
    const h = await startAuth({ AUTH_ALLOW_UNLINKING_ALL: "true" });
    try {
      const browser = await signUpWithPassword(h, "stale@example.com");
      const [account] = (await browser.get("/auth/list-accounts")).body;
      await sql`update sessions set created_at = now() - interval '2 days'`.execute(h.database.db);
      const response = await browser.post("/auth/unlink-account", { accountId: account.id });
      expect(response.status).toBe(403);
      expect(response.body.message).toBe("Session is not fresh");
      expect((await browser.get("/auth/list-accounts")).body).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe("GitHub and Google from the environment", () => {
  it("a configured provider is offered (its authorization URL), and one without ID tokens refuses them: 'id_token not supported'", async () => {
    const h = await startAuth({ GITHUB_CLIENT_ID: "gh-client", GITHUB_CLIENT_SECRET: "gh-secret" });
    try {
      const browser = await signInWithMagicLink(h, "gh@example.com");
      const started = await browser.post("/auth/link-social", { provider: "github", callbackURL: "/account", disableRedirect: true });
      expect(started.status).toBe(200);
      const url = new URL(started.body.url);
      expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
      expect(url.searchParams.get("client_id")).toBe("gh-client");
      expect(url.searchParams.get("redirect_uri")).toBe(`${h.baseUrl}/auth/callback/github`);

      const withIdToken = await browser.post("/auth/link-social", { provider: "github", idToken: { token: "x" } });
      expect(withIdToken.status).toBe(404);
      expect(withIdToken.body.message).toBe("id_token not supported");

      // Google is not configured here: not offered.
      expect((await browser.post("/auth/link-social", { provider: "google", callbackURL: "/" })).status).toBe(404);
    } finally {
      await h.close();
    }
  });

  it("half a provider (an id without its secret) is a configuration error naming the missing variable", async () => {
    await expect(startAuth({ GOOGLE_CLIENT_ID: "only-the-id" })).rejects.toThrow(/GOOGLE_CLIENT_SECRET/);
  });
});

describe("allowUnlinkingAll", () => {
  it("AUTH_ALLOW_UNLINKING_ALL lets the last account go", async () => {
    const h = await startAuth({ AUTH_ALLOW_UNLINKING_ALL: "true" });
    try {
      const browser = await signUpWithPassword(h, "all@example.com");
      const [account] = (await browser.get("/auth/list-accounts")).body;
      const response = await browser.post("/auth/unlink-account", { accountId: account.id });
      expect(response.body).toEqual({ status: true });
      expect((await browser.get("/auth/list-accounts")).body).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
