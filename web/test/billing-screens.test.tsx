// The plan card, the return from checkout, Account Settings' plan section and the start
// form's trial-limit refusal, against a fake of the network only.
import { QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAppQueryClient } from "../src/app/query-client";
import { trialSummary } from "../src/features/billing/plan";
import { SUBSCRIPTION_SUCCESS_MESSAGE } from "../src/features/billing/use-subscription-return";
import { StartTranscriptionForm } from "../src/features/transcriptions/StartTranscriptionForm";
import { leaveFor } from "../src/lib/leave-for";
import { billingAnswers, type FakePlan, json, sessionAnswer, stubNetwork, TEST_USER } from "./fake-network";
import { renderApp } from "./render-app";
import { chooseInCombobox } from "./choose";

vi.mock("../src/lib/leave-for", () => ({ leaveFor: vi.fn() }));

function signedIn(url: string, plan: FakePlan, answers: Record<string, ReturnType<typeof json> | (() => Response)> = {}) {
  const network = stubNetwork({
    "GET /auth/get-session": sessionAnswer(TEST_USER),
    "GET /api/v1/transcriptions": () => json({ items: [], total: 0, limit: 10, offset: 0 }),
    "GET /auth/list-accounts": () => json([]),
    "GET /auth/list-sessions": () => json([]),
    ...billingAnswers(plan),
    ...answers,
  });
  return { ...renderApp([url]), network };
}

describe("trialSummary", () => {
  it("works out what is left, never below zero", () => {
    expect(trialSummary({ usedTotal: 15, totalLimit: 60, tier: "free" })).toMatchObject({ remaining: 45, percent: 25, atLimit: false });
    expect(trialSummary({ usedTotal: 60, totalLimit: 60, tier: "free" })).toMatchObject({ remaining: 0, percent: 100, atLimit: true });
    // Usage settles after the job: it can pass the limit.
    expect(trialSummary({ usedTotal: 63, totalLimit: 60, tier: "free" })).toMatchObject({ remaining: 0, percent: 100, atLimit: true });
    expect(trialSummary({ usedTotal: 0, totalLimit: 0, tier: "free" })).toMatchObject({ remaining: 0, atLimit: true });
    expect(trialSummary({ usedTotal: 500, totalLimit: 60, tier: "premium" })).toMatchObject({ premium: true, atLimit: false });
  });
});

describe("plan card on /dashboard", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.mocked(leaveFor).mockReset();
  });

  it("shows usage and what is left, and explains that payments are off (no upgrade button)", async () => {
    signedIn("/dashboard", { used: 15, limit: 60, paymentsEnabled: false });
    const card = await screen.findByTestId("plan-card");
    await waitFor(() => expect(within(card).getByTestId("plan-trial-left")).toHaveTextContent("15 minutes of 60 minutes used · 45 minutes left"));
    expect(within(card).getByTestId("plan-tier")).toHaveTextContent("Free");
    expect(within(card).getByRole("progressbar", { name: "Free minutes used" })).toHaveAttribute("aria-valuenow", "15");
    expect(await within(card).findByTestId("plan-payments-off")).toHaveTextContent("Payments are off on this server");
    expect(within(card).queryByTestId("plan-upgrade")).toBeNull();
    expect(within(card).getByTestId("plan-usage")).toHaveTextContent("This month1 file, 15 minutes");
  });

  it("with payments on, 'Upgrade to premium' starts a checkout and leaves for its page", async () => {
    const { network } = signedIn("/dashboard", { used: 60, limit: 60, paymentsEnabled: true }, {
      "POST /api/v1/billing/checkout": () => json({ checkout_url: "https://checkout.stripe.com/c/pay/cs_1", session_id: "cs_1" }),
    });
    const card = await screen.findByTestId("plan-card");
    expect(await within(card).findByTestId("plan-at-limit")).toHaveTextContent("You have used all your free minutes.");
    fireEvent.click(await within(card).findByTestId("plan-upgrade"));
    await waitFor(() => expect(leaveFor).toHaveBeenCalledWith("https://checkout.stripe.com/c/pay/cs_1"));
    expect(network.calls).toContain("POST /api/v1/billing/checkout");
  });

  it("shows a failed checkout's message", async () => {
    signedIn("/dashboard", { paymentsEnabled: true }, {
      "POST /api/v1/billing/checkout": () => json({ error: { code: "unavailable", message: "Stripe is unreachable" } }, 503),
    });
    fireEvent.click(await screen.findByTestId("plan-upgrade"));
    expect(await screen.findByText("Stripe is unreachable")).toBeInTheDocument();
    expect(leaveFor).not.toHaveBeenCalled();
  });

  it("premium: no trial bar, no upgrade", async () => {
    signedIn("/dashboard", { used: 500, tier: "premium", paymentsEnabled: true });
    const card = await screen.findByTestId("plan-card");
    await waitFor(() => expect(within(card).getByTestId("plan-tier")).toHaveTextContent("Premium"));
    expect(within(card).queryByRole("progressbar")).toBeNull();
    expect(within(card).queryByTestId("plan-upgrade")).toBeNull();
  });

  it("after checkout (?subscription=success): a success toast, the parameter dropped, the plan read again", async () => {
    const { network, router } = signedIn("/dashboard?subscription=success", { paymentsEnabled: true });
    expect(await screen.findByText(SUBSCRIPTION_SUCCESS_MESSAGE)).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.href).toBe("/dashboard"));
    expect(screen.getAllByText(SUBSCRIPTION_SUCCESS_MESSAGE)).toHaveLength(1);
    // Still free (the webhook is late): the plan is re-read until it shows premium.
    network.answer("GET /api/v1/trial-limits", () => json({ used_total: 0, total_limit: 60, tier: "premium" }));
    await waitFor(() => expect(screen.getByTestId("plan-tier")).toHaveTextContent("Premium"), { timeout: 5000 });
    const reads = network.calls.filter((c) => c === "GET /api/v1/trial-limits").length;
    expect(reads).toBeGreaterThanOrEqual(2);
    // Once premium, it stops asking.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(network.calls.filter((c) => c === "GET /api/v1/trial-limits").length).toBe(reads);
  });
});

describe("plan section in Account Settings", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.mocked(leaveFor).mockReset();
  });

  it("restores a subscription scheduled to cancel through POST /auth/subscription/restore", async () => {
    const { network } = signedIn("/account", { tier: "premium", paymentsEnabled: true, cancelAtPeriodEnd: true }, {
      "POST /auth/subscription/restore": () => json({ status: "active", tier: "premium" }),
    });
    const section = await screen.findByTestId("account-plan");
    expect(await within(section).findByTestId("account-plan-cancelling")).toHaveTextContent("Your subscription is set to end on");
    expect(within(section).getByTestId("account-plan-status")).toHaveTextContent("Subscription: Active");
    network.answer("GET /api/v1/billing/subscription", () =>
      json({ payments_enabled: true, tier: "premium", tier_set_by_admin: false, has_billing_account: true, status: "active", cancel_at_period_end: false, current_period_end: null }),
    );
    fireEvent.click(within(section).getByTestId("account-plan-restore"));
    expect(await screen.findByText("Your subscription will continue")).toBeInTheDocument();
    await waitFor(() => expect(within(section).queryByTestId("account-plan-cancelling")).toBeNull());
    expect(network.calls).toContain("POST /auth/subscription/restore");
  });

  it("'Manage billing' opens the Stripe portal", async () => {
    signedIn("/account", { tier: "premium", paymentsEnabled: true }, {
      "POST /api/v1/billing/portal": () => json({ portal_url: "https://billing.stripe.com/p/session/1" }),
    });
    fireEvent.click(await screen.findByTestId("account-plan-portal"));
    await waitFor(() => expect(leaveFor).toHaveBeenCalledWith("https://billing.stripe.com/p/session/1"));
  });

  it("without payments: the note, and no billing buttons", async () => {
    signedIn("/account", { paymentsEnabled: false });
    const section = await screen.findByTestId("account-plan");
    expect(await within(section).findByTestId("account-plan-payments-off")).toBeInTheDocument();
    expect(within(section).queryByRole("button")).toBeNull();
  });
});

describe("start form at the free limit", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("keeps the server's refusal on the form with the way to upgrade", async () => {
    const message = "Trial limit reached: you have used 60 of your 60 free minutes (0 left) and this file needs 1. Upgrade to premium to transcribe more.";
    stubNetwork({
      "GET /api/v1/models": () =>
        json({ models: [{ id: "whisper-base", name: "Whisper base", provider: "local", available: true, languages: ["auto", "en"], translation: true }] }),
      "POST /api/v1/transcriptions": () =>
        json({ error: { code: "trial_limit_exceeded", message, detail: { used: 60, limit: 60, remaining: 0, requested: 1 } } }, 402),
      ...billingAnswers({ used: 60, limit: 60, paymentsEnabled: true }),
    });
    render(
      <QueryClientProvider client={createAppQueryClient()}>
        <StartTranscriptionForm fileId="f1" />
      </QueryClientProvider>,
    );
    await chooseInCombobox(await screen.findByLabelText("Language"), "en");
    fireEvent.click(screen.getByRole("button", { name: "Start transcription" }));
    const refusal = await screen.findByTestId("trial-limit-refusal");
    expect(refusal).toHaveTextContent(message);
    expect(await within(refusal).findByTestId("trial-limit-upgrade")).toBeInTheDocument();
  });
});
