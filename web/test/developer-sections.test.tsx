// Account Settings → API keys and Webhooks, against a fake of the network only: what is
// sent, that a secret is shown once, and what the lists show.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sentBody } from "./auth-screens-helpers";
import { json, sessionAnswer, stubNetwork, TEST_USER, type Answer } from "./fake-network";
import { renderApp } from "./render-app";

afterEach(() => vi.unstubAllGlobals());

function stubAccount(answers: Record<string, Answer>) {
  return stubNetwork({
    "GET /auth/get-session": sessionAnswer(TEST_USER),
    "GET /auth/list-accounts": () => json([]),
    "GET /auth/list-sessions": () => json([]),
    ...answers,
  });
}

async function openSection(testId: string) {
  renderApp(["/account"]);
  await screen.findByRole("heading", { level: 1, name: "Account Settings" });
  return screen.findByTestId(testId);
}

const KEY = { id: "k1", name: "CI", prefix: "tsk_ab12", created_at: "2025-03-01T10:00:00.000Z", last_used_at: null, expires_at: null };

describe("API keys", () => {
  it("creates a key, shows its secret once, lists it without the secret, and revokes it", async () => {
    let keys: unknown[] = [];
    const network = stubAccount({
      "GET /api/v1/api-keys": () => json({ api_keys: keys }),
      "POST /api/v1/api-keys": () => {
        keys = [{ ...KEY, expires_at: "2030-01-31T23:59:59.000Z" }];
        return json({ ...KEY, expires_at: "2030-01-31T23:59:59.000Z", key: "tsk_ab12_secret_value" }, 201);
      },
      "DELETE /api/v1/api-keys/k1": () => {
        keys = [];
        return new Response(null, { status: 204 });
      },
    });
    const section = await openSection("account-api-keys");
    expect(await within(section).findByText("No API keys yet.")).toBeInTheDocument();
    const create = within(section).getByTestId("api-key-create");
    expect(create).toBeDisabled();

    fireEvent.change(within(section).getByLabelText("Name"), { target: { value: "  CI  " } });
    fireEvent.change(within(section).getByLabelText("Expires (optional)"), { target: { value: "2030-01-31" } });
    expect(create).toBeEnabled();
    fireEvent.click(create);

    const secret = await within(section).findByTestId("api-key-secret");
    expect(within(secret).getByTestId("api-key-secret-value")).toHaveValue("tsk_ab12_secret_value");
    expect(secret).toHaveTextContent("it is not shown again");
    expect(sentBody(network, "POST", "/api/v1/api-keys")).toEqual({ name: "CI", expires_at: new Date("2030-01-31T23:59:59").toISOString() });
    expect(within(section).getByLabelText("Name")).toHaveValue("");

    const item = await within(section).findByTestId("api-key");
    expect(item).toHaveTextContent("CI tsk_ab12…");
    expect(item).toHaveTextContent("never used");
    expect(item).toHaveTextContent("expires");
    expect(item).not.toHaveTextContent("secret_value");

    fireEvent.click(within(secret).getByRole("button", { name: "Done" }));
    expect(within(section).queryByTestId("api-key-secret")).toBeNull();

    fireEvent.click(within(item).getByTestId("api-key-revoke"));
    expect(await within(section).findByText("No API keys yet.")).toBeInTheDocument();
    expect(network.calls).toContain("DELETE /api/v1/api-keys/k1");
  });

  it("keeps the server's refusal on the form and shows no secret", async () => {
    stubAccount({
      "GET /api/v1/api-keys": () => json({ api_keys: [] }),
      "POST /api/v1/api-keys": () => json({ error: { code: "invalid_request", message: "You already have 20 API keys" } }, 400),
    });
    const section = await openSection("account-api-keys");
    const name = within(section).getByLabelText("Name");
    fireEvent.change(name, { target: { value: "one more" } });
    fireEvent.click(within(section).getByTestId("api-key-create"));
    const error = await within(section).findByText("You already have 20 API keys");
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(name.getAttribute("aria-describedby")).toBe(error.id);
    expect(within(section).queryByTestId("api-key-secret")).toBeNull();
  });
});

describe("Webhooks", () => {
  const HOOK = { id: "w1", url: "https://example.com/hooks", events: ["transcription.completed", "transcription.failed"], created_at: "2025-03-01T10:00:00.000Z" };
  const DELIVERY = {
    id: "d1",
    event_type: "transcription.failed",
    transcription_id: "t1",
    status: "failed",
    attempts: 3,
    last_status_code: 500,
    last_error: "Internal Server Error",
    created_at: "2025-03-01T10:05:00.000Z",
    next_attempt_at: null,
    delivered_at: null,
  };

  it("adds an endpoint for the chosen events, shows the signing secret once, lists deliveries, resends and removes", async () => {
    let hooks: unknown[] = [];
    const network = stubAccount({
      "GET /api/v1/webhooks": () => json({ webhooks: hooks }),
      "POST /api/v1/webhooks": () => {
        hooks = [HOOK];
        const { created_at: _created, ...created } = HOOK;
        return json({ ...created, secret: "whsec_c2VjcmV0" }, 201);
      },
      "GET /api/v1/webhooks/w1/deliveries": () => json({ deliveries: [DELIVERY] }),
      "POST /api/v1/webhooks/w1/deliveries/d1/resend": () => json({ ...DELIVERY, status: "pending", attempts: 0 }),
      "DELETE /api/v1/webhooks/w1": () => {
        hooks = [];
        return new Response(null, { status: 204 });
      },
    });
    const section = await openSection("account-webhooks");
    expect(await within(section).findByText("No webhooks yet.")).toBeInTheDocument();
    const add = within(section).getByTestId("webhook-create");
    expect(add).toBeDisabled();
    fireEvent.change(within(section).getByLabelText("Endpoint URL"), { target: { value: " https://example.com/hooks " } });
    expect(add).toBeEnabled();

    // Completed is on by default; with no event at all there is nothing to add.
    const completed = within(section).getByRole("checkbox", { name: "transcription.completed" });
    const failed = within(section).getByRole("checkbox", { name: "transcription.failed" });
    expect(completed).toBeChecked();
    fireEvent.click(completed);
    expect(add).toBeDisabled();
    fireEvent.click(completed);
    fireEvent.click(failed);
    fireEvent.click(add);

    const secret = await within(section).findByTestId("webhook-secret");
    expect(within(secret).getByTestId("webhook-secret-value")).toHaveValue("whsec_c2VjcmV0");
    expect(sentBody(network, "POST", "/api/v1/webhooks")).toEqual({ url: "https://example.com/hooks", events: ["transcription.completed", "transcription.failed"] });

    const hook = await within(section).findByTestId("webhook");
    expect(hook).toHaveTextContent("https://example.com/hooks");
    expect(hook).toHaveTextContent("transcription.completed, transcription.failed");
    expect(hook).not.toHaveTextContent("whsec_");

    fireEvent.click(within(hook).getByTestId("webhook-deliveries"));
    const delivery = await within(hook).findByTestId("webhook-delivery");
    expect(delivery).toHaveTextContent("transcription.failed");
    expect(delivery).toHaveTextContent("failed");
    expect(delivery).toHaveTextContent("3 attempts");
    expect(delivery).toHaveTextContent("HTTP 500");
    fireEvent.click(within(delivery).getByTestId("webhook-resend"));
    await waitFor(() => expect(network.calls).toContain("POST /api/v1/webhooks/w1/deliveries/d1/resend"));
    expect(within(hook).getByTestId("webhook-deliveries")).toHaveTextContent("Hide deliveries");

    fireEvent.click(within(hook).getByTestId("webhook-remove"));
    expect(await within(section).findByText("No webhooks yet.")).toBeInTheDocument();
    expect(network.calls).toContain("DELETE /api/v1/webhooks/w1");
  });

  it("shows the server's refusal of a URL next to the field", async () => {
    stubAccount({
      "GET /api/v1/webhooks": () => json({ webhooks: [] }),
      "POST /api/v1/webhooks": () => json({ error: { code: "invalid_request", message: "The webhook URL must use https" } }, 400),
    });
    const section = await openSection("account-webhooks");
    const url = within(section).getByLabelText("Endpoint URL");
    fireEvent.change(url, { target: { value: "http://example.com/hooks" } });
    fireEvent.click(within(section).getByTestId("webhook-create"));
    expect(await within(section).findByText("The webhook URL must use https")).toBeInTheDocument();
    expect(url).toHaveAttribute("aria-invalid", "true");
    expect(within(section).queryByTestId("webhook-secret")).toBeNull();
  });
});
