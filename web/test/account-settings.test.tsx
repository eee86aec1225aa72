// Account Settings against a fake of the network only.
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sentBody } from "./auth-screens-helpers";
import { type FakeUser, json, sessionAnswer, stubNetwork, TEST_USER } from "./fake-network";
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
  return { network, setUser: (next: FakeUser | null) => void (user = next) };
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
      { token: "t", createdAt: "2025-01-01T00:00:00.000Z", userAgent: "This browser" },
      { token: "other-token", createdAt: "2025-01-02T00:00:00.000Z", userAgent: "Phone" },
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
});
