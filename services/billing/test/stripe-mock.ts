import { skipWhen } from "@transcribe/platform/testing";
// Stripe's API in tests is stripe-mock (deploy/stripe-mock/stripe-mock.sh start; CI starts
// it): STRIPE_MOCK_URL, or its default port. Tests that need it skip with the reason when
// it does not answer, and fail instead under REQUIRE_STRIPE_MOCK=1 (CI).
export const stripeMockUrl = process.env.STRIPE_MOCK_URL ?? "http://127.0.0.1:12111";

async function answers(): Promise<boolean> {
  try {
    const response = await fetch(`${stripeMockUrl}/v1/customers?limit=1`, { headers: { authorization: "Bearer sk_test_123" } });
    return response.ok;
  } catch {
    return false;
  }
}

/** Whether stripe-mock answers; throws when it must (REQUIRE_STRIPE_MOCK=1) and does not. */
export async function stripeMockAvailable(what: string): Promise<boolean> {
  if (await answers()) return true;
  if (process.env.REQUIRE_STRIPE_MOCK === "1") throw new Error(`stripe-mock is required (REQUIRE_STRIPE_MOCK=1) but does not answer at ${stripeMockUrl}`);
  const reason = `stripe-mock does not answer at ${stripeMockUrl}`;
  skipWhen("stripe-mock", reason);
  process.stdout.write(`${what} skipped: ${reason} (deploy/stripe-mock/stripe-mock.sh start)\n`);
  return false;
}
