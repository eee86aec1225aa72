// Account Settings against a fake of the network only.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sentBody } from "./auth-screens-helpers";
import { type FakeUser, json, meAnswer, sessionAnswer, stubNetwork, TEST_SESSION, TEST_USER } from "./fake-network";
import { renderApp } from "./render-app";

const CREDENTIAL = {
  id: "acc-1",
  providerId: "credential",
  accountId: "user-1",
  userId: "user-1",
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  scopes: [],
};

function stubAccountNetwork(accounts: unknown[] = []) {
  let user: FakeUser | null = TEST_USER;
  const network = stubNetwork({
    "GET /auth/get-session": () => (sessionAnswer(user) as () => Response)(),
    "GET /auth/list-accounts": () => json(accounts),
    "GET /auth/list-sessions": () => json([]),
  });
  return {
    network,
    setUser: (next: FakeUser | null) => {
      user = next;
    },
  };
}

async function openAccount() {
  const app = renderApp(["/account"]);
  await screen.findByRole("heading", { level: 1, name: "Account Settings" });
  return app;
}

describe("Account Settings", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("saves the name and refreshes the session, so the user menu shows it", async () => {
    const { network, setUser } = stubAccountNetwork();
    network.answer("POST /auth/update-user", () => {
      setUser({ ...TEST_USER, name: "Grace Hopper" });
      return json({ status: true });
    });
    await openAccount();
    expect(screen.getByTestId("user-menu")).toHaveTextContent("Ada Lovelace");

    fireEvent.change(screen.getByTestId("account-name"), { target: { value: "  Grace Hopper " } });
    fireEvent.click(screen.getByTestId("account-name-save"));

    await waitFor(() => expect(screen.getByTestId("user-menu")).toHaveTextContent("Grace Hopper"));
    expect(within(screen.getByTestId("user-menu")).getByTestId("user-avatar")).toHaveTextContent("GH");
    expect(sentBody(network, "POST", "/auth/update-user")).toEqual({ name: "Grace Hopper" });
    expect(network.calls.filter((call) => call === "GET /auth/get-session").length).toBeGreaterThanOrEqual(2);
  });

  it("shows 'Email is the same' from the server's 400", async () => {
    const { network } = stubAccountNetwork();
    network.answer("POST /auth/change-email", () => json({ message: "Email is the same", code: "EMAIL_IS_THE_SAME" }, 400));
    await openAccount();

    fireEvent.change(screen.getByTestId("account-new-email"), { target: { value: "ada@example.com" } });
    fireEvent.click(screen.getByTestId("account-email-save"));

    const section = screen.getByTestId("account-email");
    expect(await within(section).findByRole("alert")).toHaveTextContent("Email is the same");
    expect(sentBody(network, "POST", "/auth/change-email")).toEqual({ newEmail: "ada@example.com", callbackURL: "/account" });
  });

  it("deletes with the password and leaves for the home page", async () => {
    const { network, setUser } = stubAccountNetwork([CREDENTIAL]);
    network.answer("POST /auth/delete-user", () => {
      setUser(null);
      return json({ success: true, message: "User deleted" });
    });
    const { router } = await openAccount();

    fireEvent.click(screen.getByTestId("account-delete-open"));
    fireEvent.change(await screen.findByTestId("account-delete-password"), { target: { value: "correct horse" } });
    fireEvent.click(screen.getByTestId("account-delete-confirm"));

    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(sentBody(network, "POST", "/auth/delete-user")).toEqual({ password: "correct horse", callbackURL: "/" });
  });

  it("says the verification e-mail was sent when deleting without a password", async () => {
    const { network } = stubAccountNetwork();
    network.answer("POST /auth/delete-user", () => json({ success: true, message: "Verification email sent" }));
    const { router } = await openAccount();

    fireEvent.click(screen.getByTestId("account-delete-open"));
    fireEvent.click(await screen.findByTestId("account-delete-confirm"));

    expect(await screen.findByTestId("account-delete-done")).toHaveTextContent("Verification email sent");
    expect(sentBody(network, "POST", "/auth/delete-user")).toEqual({ callbackURL: "/" });
    expect(router.state.location.pathname).toBe("/account");
  });

  it("shows the server's refusal to unlink the last account, by account row id", async () => {
    const { network } = stubAccountNetwork([CREDENTIAL]);
    network.answer("POST /auth/unlink-account", () =>
      json({ message: "You can't unlink your last account", code: "FAILED_TO_UNLINK_LAST_ACCOUNT" }, 400),
    );
    await openAccount();

    fireEvent.click(await screen.findByRole("button", { name: "Unlink E-mail and password" }));
    expect(await screen.findByTestId("account-linked-error")).toHaveTextContent("You can't unlink your last account");
    expect(sentBody(network, "POST", "/auth/unlink-account")).toEqual({ accountId: "acc-1" });
  });

  it("offers a password change only with a credential account, and sends revokeOtherSessions", async () => {
    const { network } = stubAccountNetwork([CREDENTIAL]);
    network.answer("POST /auth/change-password", () => json({ message: "Invalid password", code: "INVALID_PASSWORD" }, 400));
    await openAccount();

    fireEvent.change(await screen.findByTestId("account-current-password"), { target: { value: "old-pass-1" } });
    fireEvent.change(screen.getByTestId("account-new-password"), { target: { value: "new-pass-12" } });
    fireEvent.click(screen.getByTestId("account-password-save"));

    expect(await within(screen.getByTestId("account-password")).findByRole("alert")).toHaveTextContent("Invalid password");
    expect(sentBody(network, "POST", "/auth/change-password")).toEqual({
      currentPassword: "old-pass-1",
      newPassword: "new-pass-12",
      revokeOtherSessions: true,
    });
  });

  it("says setting a password is not available without a credential account", async () => {
    stubAccountNetwork([]);
    await openAccount();
    expect(await screen.findByTestId("account-set-password-unavailable")).toBeInTheDocument();
    expect(screen.queryByTestId("account-current-password")).not.toBeInTheDocument();
  });

  it("revokes another session by token and the others at once", async () => {
    const { network } = stubAccountNetwork();
    const sessions = [
      { ...TEST_SESSION, userAgent: "This browser" },
      { ...TEST_SESSION, id: "session-2", token: "other-token", createdAt: "2025-01-02T00:00:00.000Z", userAgent: "Phone" },
    ];
    network.answer("GET /auth/list-sessions", () => json(sessions));
    network.answer("POST /auth/revoke-session", () => json({ status: true }));
    network.answer("POST /auth/revoke-other-sessions", () => json({ status: true }));
    await openAccount();

    const rows = await screen.findAllByTestId("active-session");
    expect(rows[0]).toHaveAttribute("data-current", "true");
    expect(within(rows[0]!).queryByRole("button")).not.toBeInTheDocument();
    fireEvent.click(within(rows[1]!).getByRole("button", { name: "Sign out" }));
    await waitFor(() => expect(sentBody(network, "POST", "/auth/revoke-session")).toEqual({ token: "other-token" }));

    fireEvent.click(screen.getByTestId("revoke-other-sessions"));
    await waitFor(() => expect(network.calls).toContain("POST /auth/revoke-other-sessions"));
  });

  describe("Speech models (administrators)", () => {
    const medium = {
      id: "whisper-medium",
      provider: "local",
      name: "Whisper medium (on this server, multilingual, slow)",
      languages: ["auto", "en", "de"],
      translation: true,
      available: false,
      preparing: true,
      present: false,
      download_bytes: 1_530_000_000,
      ram_bytes: 3_000_000_000,
      reason: "Not downloaded yet (1.5 GB); it downloads when first used or an administrator can download it now",
    };
    const tinyEn = { ...medium, id: "whisper-tiny.en", name: "Whisper tiny.en", languages: ["auto", "en"], translation: false, available: true, preparing: undefined, present: true, download_bytes: 76_000_000, ram_bytes: 500_000_000, reason: undefined };
    const groq = { id: "whisper-large-v3", provider: "groq", name: "Whisper large-v3 (Groq)", languages: ["auto", "en"], translation: true, available: false, reason: "Needs a Groq API key" };

    it("is not shown to someone who is not an administrator", async () => {
      const { network } = stubAccountNetwork();
      network.answer("GET /api/v1/me", meAnswer(false));
      await openAccount();
      await waitFor(() => expect(network.calls).toContain("GET /api/v1/me"));
      expect(screen.queryByTestId("account-models")).not.toBeInTheDocument();
    });

    it("lists the local models with size, memory, languages and translation; downloads with a progress bar; removes after a confirmation", async () => {
      const { network } = stubAccountNetwork();
      let current = medium as Record<string, unknown>;
      network.answer("GET /api/v1/me", meAnswer(true));
      network.answer("GET /api/v1/models", () => json({ models: [current, tinyEn, groq] }));
      network.answer("POST /api/v1/models/whisper-medium/download", () => {
        current = { ...medium, download: { done_bytes: 120_000_000, total_bytes: 1_530_000_000 }, reason: "downloading Whisper medium: 120 MB of 1530 MB" };
        return json({ model: current }, 202);
      });
      network.answer("DELETE /api/v1/models/whisper-tiny.en", () => json({ model: { ...tinyEn, present: false }, removed: true }));
      await openAccount();

      const section = await screen.findByTestId("account-models");
      const row = await within(section).findByTestId("model-whisper-medium");
      expect(row).toHaveTextContent("1.5 GB download · needs 3.0 GB of memory · 2 languages · can translate to English");
      expect(row).toHaveTextContent("Not downloaded yet (1.5 GB)");
      expect(within(section).getByTestId("model-whisper-tiny.en")).toHaveTextContent("EN only · cannot translate");
      expect(within(section).queryByText(/Groq/)).not.toBeInTheDocument();

      fireEvent.click(within(row).getByTestId("model-whisper-medium-download"));
      const bar = await within(section).findByTestId("model-whisper-medium-progress");
      expect(bar).toHaveAttribute("value", "120000000");
      expect(bar).toHaveAttribute("max", "1530000000");
      expect(row).toHaveTextContent("downloading Whisper medium: 120 MB of 1530 MB");

      fireEvent.click(within(section).getByTestId("model-whisper-tiny.en-remove"));
      fireEvent.click(await screen.findByTestId("model-remove-confirm"));
      await waitFor(() => expect(network.calls).toContain("DELETE /api/v1/models/whisper-tiny.en"));
    });
  });
});
