import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderAuthErrorPage } from "../src/domain/error-page.js";
import { type AuthHarness, startAuth } from "./harness.js";

describe("auth pages", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  it("GET /auth/ok is {ok: true}", async () => {
    const response = await h.browser().get("/auth/ok");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true });
  });

  it("GET /auth/error shows 'Authentication Error', the code escaped, and 'Return to Application' → /", async () => {
    const response = await h.browser().get(`/auth/error?error=${encodeURIComponent('<script>alert("x")</script>')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = response.body as string;
    expect(html).toContain("<title>Authentication Error</title>");
    expect(html).toContain("<h1>Authentication Error</h1>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).toContain('<a href="/">Return to Application</a>');
  });

  it("GET /auth/error without a code shows 'Unknown'", async () => {
    const html = (await h.browser().get("/auth/error")).body as string;
    expect(html).toContain("<code>Unknown</code>");
    expect(renderAuthErrorPage("")).toContain("<code>Unknown</code>");
  });

  it("unknown /auth paths are 404", async () => {
    expect((await h.browser().get("/auth/nope")).status).toBe(404);
  });

  it("a social provider that is not configured is 'Provider not found' (404)", async () => {
    const response = await h.browser().post("/auth/sign-in/social", { provider: "github", callbackURL: "/" });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe("Provider not found");
  });
});

describe("rate limits", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ AUTH_RATE_LIMIT_ENABLED: "true" });
  });
  afterAll(() => h?.close());

  it("the 6th magic link request within a minute from one address is 429 with a clear message and Retry-After", async () => {
    const browser = h.browser();
    for (let i = 0; i < 5; i++) {
      const ok = await browser.post("/auth/sign-in/magic-link", { email: `rl-${i}@example.com`, callbackURL: "/" });
      expect(ok.status, `request ${i + 1}`).toBe(200);
    }
    const limited = await browser.post("/auth/sign-in/magic-link", { email: "rl-6@example.com", callbackURL: "/" });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: "Too many requests. Please try again later." });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await h.mails("rl-6@example.com")).toEqual([]);
  });

  it("the limit holds across replicas (it is kept in PostgreSQL) and is per client address", async () => {
    const replica = await h.replica();
    const limited = await replica.browser().post("/auth/sign-in/magic-link", { email: "rl-7@example.com", callbackURL: "/" });
    expect(limited.status).toBe(429);
    const otherClient = await replica
      .browser()
      .request("/auth/sign-in/magic-link", { method: "POST", json: { email: "rl-8@example.com", callbackURL: "/" }, headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(otherClient.status).toBe(200);
  });

  it("password sign-in is limited too", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await h.browser().post("/auth/sign-in/email", { email: "x@example.com", password: "wrong password" })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it("other endpoints are not limited as tightly", async () => {
    for (let i = 0; i < 10; i++) expect((await h.browser().get("/auth/get-session")).status).toBe(200);
  });
});
