// A fake of the network boundary only: `fetch` answers like the BFF would, so the API
// client, session query, gate and router under test are the real ones.
import { vi } from "vitest";

export const TEST_USER = {
  id: "user-1",
  email: "ada@example.com",
  name: "Ada Lovelace",
  image: null,
  emailVerified: true,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
};

/** A session as better-auth's get-session returns it. */
export const TEST_SESSION = {
  id: "session-1",
  token: "t",
  userId: TEST_USER.id,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  expiresAt: "2099-01-01T00:00:00.000Z",
};

/** GET /api/v1/me's answer (snake_case, as the BFF sends it) for TEST_USER. */
export function meAnswer(isAdmin = false): Answer {
  return () =>
    json({ ...TEST_USER, email_verified: TEST_USER.emailVerified, created_at: TEST_USER.createdAt, updated_at: TEST_USER.updatedAt, is_admin: isAdmin });
}

export type FakeUser = Omit<typeof TEST_USER, "name" | "image"> & { name?: string | null; image?: string | null };

export type Answer = Response | (() => Response | Promise<Response>);

export interface FakeNetwork {
  /** Calls seen, as "METHOD /path?query". */
  calls: string[];
  fetch: ReturnType<typeof vi.fn>;
  /** Changes what a path answers from now on. */
  answer(methodAndPath: string, answer: Answer): void;
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** GET /auth/get-session's answer for a user, or for nobody (JSON null, as the auth service sends). */
export function sessionAnswer(user: FakeUser | null): Answer {
  return () =>
    json(user ? { session: { ...TEST_SESSION, userId: user.id }, user } : null);
}

export const serverError: Answer = () => json({ error: { code: "internal", message: "Internal error" } }, 500);

/**
 * Installs a fake `fetch`. Keys are "METHOD /path" (query ignored); unknown paths get the
 * BFF's JSON 404 so a test notices a call it did not expect.
 */
export function stubNetwork(answers: Record<string, Answer>): FakeNetwork {
  const table = new Map(Object.entries(answers));
  const calls: string[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://localhost");
    const method = (init?.method ?? "GET").toUpperCase();
    calls.push(`${method} ${url.pathname}${url.search}`);
    const answer = table.get(`${method} ${url.pathname}`);
    if (!answer) return json({ error: { code: "not_found", message: "Not found" } }, 404);
    return typeof answer === "function" ? answer() : answer.clone();
  });
  vi.stubGlobal("fetch", fetch);
  return { calls, fetch, answer: (key, answer) => void table.set(key, answer) };
}

export interface FakePlan {
  used?: number;
  limit?: number;
  tier?: "free" | "premium";
  paymentsEnabled?: boolean;
  status?: string;
  cancelAtPeriodEnd?: boolean;
  hasBillingAccount?: boolean;
}

/** The billing routes' answers (snake_case, as the BFF sends them) for a plan. */
export function billingAnswers(plan: FakePlan = {}): Record<string, Answer> {
  const { used = 0, limit = 60, tier = "free", paymentsEnabled = false } = plan;
  return {
    "GET /api/v1/trial-limits": () => json({ used_total: used, total_limit: limit, tier }),
    "GET /api/v1/usage-stats": () =>
      json({ this_month: { file_count: used > 0 ? 1 : 0, total_minutes: used }, all_time: { file_count: used > 0 ? 1 : 0, total_minutes: used } }),
    "GET /api/v1/billing/subscription": () =>
      json({
        payments_enabled: paymentsEnabled,
        tier,
        tier_set_by_admin: false,
        has_billing_account: plan.hasBillingAccount ?? tier === "premium",
        status: plan.status ?? (tier === "premium" ? "active" : "none"),
        cancel_at_period_end: plan.cancelAtPeriodEnd ?? false,
        current_period_end: plan.cancelAtPeriodEnd ? "2026-12-31T12:00:00.000Z" : null,
      }),
  };
}
