// Magic-link sign-in on the home page and the landing after the link, against a fake of
// the network only (the real API client, session query, gate and router).
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sentBody } from "./auth-screens-helpers";
import { json, sessionAnswer, stubNetwork, TEST_USER } from "./fake-network";
import { renderApp } from "./render-app";

async function requestLink(address: string) {
  fireEvent.change(await screen.findByTestId("sign-in-email"), { target: { value: address } });
  fireEvent.click(screen.getByTestId("sign-in-submit"));
}

describe("sign-in on the home page", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("posts the e-mail with the saved redirect as callbackURL, in camelCase, and shows the inbox state", async () => {
    const network = stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "POST /auth/sign-in/magic-link": () => json({ status: true }),
    });
    renderApp(["/?redirect=%2Ftranscript%2Fabc%3Ftab%3D2"]);

    await requestLink("ada@example.com");

    expect(await screen.findByRole("heading", { name: "Check your inbox" })).toBeInTheDocument();
    expect(screen.getByTestId("sign-in-sent-to")).toHaveTextContent("ada@example.com");
    expect(sentBody(network, "POST", "/auth/sign-in/magic-link")).toEqual({
      email: "ada@example.com",
      callbackURL: "/transcript/abc?tab=2",
      errorCallbackURL: "/",
    });
  });

  it("uses the destination the gate saved when the URL no longer carries it, and the dashboard otherwise", async () => {
    const network = stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "POST /auth/sign-in/magic-link": () => json({ status: true }),
    });
    window.localStorage.setItem("auth-redirect", "/account");
    renderApp(["/"]);
    await requestLink("ada@example.com");
    await screen.findByRole("heading", { name: "Check your inbox" });
    expect(sentBody(network, "POST", "/auth/sign-in/magic-link")).toMatchObject({ callbackURL: "/account" });

    window.localStorage.clear();
    fireEvent.click(screen.getByTestId("sign-in-different-email"));
    await requestLink("grace@example.com");
    await screen.findByText("grace@example.com");
    expect(sentBody(network, "POST", "/auth/sign-in/magic-link")).toMatchObject({ email: "grace@example.com", callbackURL: "/dashboard" });
  });

  it("shows the server's 429 message and stays on the form", async () => {
    stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "POST /auth/sign-in/magic-link": () => json({ message: "Too many requests. Please try again later." }, 429),
    });
    renderApp(["/"]);
    await requestLink("ada@example.com");

    expect(await screen.findByRole("alert")).toHaveTextContent("Too many requests. Please try again later.");
    expect(screen.queryByRole("heading", { name: "Check your inbox" })).not.toBeInTheDocument();
  });

  it("shows the 429 message on resend too", async () => {
    const network = stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "POST /auth/sign-in/magic-link": () => json({ status: true }),
    });
    renderApp(["/"]);
    await requestLink("ada@example.com");
    await screen.findByRole("heading", { name: "Check your inbox" });

    network.answer("POST /auth/sign-in/magic-link", () => json({ message: "Too many requests. Please try again later." }, 429));
    fireEvent.click(screen.getByTestId("sign-in-resend"));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many requests. Please try again later.");
  });

  it("shows why a magic link failed when better-auth sends the visitor back with ?error=", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    renderApp(["/?error=INVALID_TOKEN"]);
    expect(await screen.findByTestId("sign-in-link-error")).toHaveTextContent("Invalid token");
  });

  it("offers the dashboard to a visitor who is already signed in", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    renderApp(["/"]);
    expect(await screen.findByRole("link", { name: "Go to your dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByTestId("sign-in-form")).not.toBeInTheDocument();
  });
});

describe("magic-link landing", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("goes on from the default page to the saved destination, and forgets it", async () => {
    stubNetwork({
      "GET /auth/get-session": sessionAnswer(TEST_USER),
      "GET /auth/list-accounts": () => json([]),
      "GET /auth/list-sessions": () => json([]),
    });
    window.localStorage.setItem("auth-redirect", "/account");
    const { router } = renderApp(["/dashboard"]);

    await waitFor(() => expect(router.state.location.pathname).toBe("/account"));
    expect(window.localStorage.getItem("auth-redirect")).toBeNull();
  });

  it("stays on the link's target when it is the saved destination, and forgets it", async () => {
    stubNetwork({
      "GET /auth/get-session": sessionAnswer(TEST_USER),
      "GET /auth/list-accounts": () => json([]),
      "GET /auth/list-sessions": () => json([]),
    });
    window.localStorage.setItem("auth-redirect", "/account");
    const { router } = renderApp(["/account"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Account Settings" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/account");
    expect(window.localStorage.getItem("auth-redirect")).toBeNull();
  });
});
