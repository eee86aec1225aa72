import { act, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api } from "../src/lib/api";
import { identifyUser } from "../src/lib/analytics";
import { renderApp } from "./render-app";
import { billingAnswers, json, serverError, sessionAnswer, stubNetwork, TEST_USER } from "./fake-network";

vi.mock("../src/lib/analytics", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../src/lib/analytics")>()),
  identifyUser: vi.fn(),
}));

const dashboardHeading = () => screen.queryByRole("heading", { level: 1, name: "Your Transcriptions" });

function dashboardSearch(router: ReturnType<typeof renderApp>["router"]) {
  return router.state.matches.find((match) => match.routeId === "/_authenticated/dashboard")?.search;
}

describe("auth gate", () => {
  beforeEach(() => vi.mocked(identifyUser).mockClear());
  afterEach(() => vi.unstubAllGlobals());

  it("sends a visitor with no session to / with the intended URL, and saves it", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    const { router } = renderApp(["/dashboard?x=1"]);

    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(router.state.location.search).toEqual({ redirect: "/dashboard?x=1" });
    expect(window.localStorage.getItem("auth-redirect")).toBe("/dashboard?x=1");
    expect(await screen.findByText("Sign in to continue to the page you opened.")).toBeInTheDocument();
    expect(dashboardHeading()).not.toBeInTheDocument();
  });

  it("does the same when the session check fails", async () => {
    const network = stubNetwork({ "GET /auth/get-session": serverError });
    const { router } = renderApp(["/dashboard?x=1"]);

    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(router.state.location.search).toEqual({ redirect: "/dashboard?x=1" });
    expect(window.localStorage.getItem("auth-redirect")).toBe("/dashboard?x=1");
    expect(await screen.findByRole("heading", { level: 1, name: "Transcribe" })).toBeInTheDocument();
    // The gate's check, then the home page's second look; no retry storm.
    expect(network.calls).toEqual(["GET /auth/get-session", "GET /auth/get-session"]);
  });

  it("does not remember a page that was only preloaded (hover over a link)", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    const { router } = renderApp(["/"]);
    expect(await screen.findByRole("heading", { level: 1, name: "Transcribe" })).toBeInTheDocument();

    await act(() => router.preloadRoute({ to: "/dashboard" }).catch(() => undefined));

    expect(window.localStorage.getItem("auth-redirect")).toBeNull();
    expect(router.state.location.href).toBe("/");
  });

  it.each(["/account", "/support", "/transcript/abc?tab=segments#s3"])("protects %s", async (url) => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    const { router } = renderApp([url]);

    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(router.state.location.search).toEqual({ redirect: url });
    expect(window.localStorage.getItem("auth-redirect")).toBe(url);
  });

  it("lets a signed-in user in and identifies them for analytics", async () => {
    const network = stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/dashboard?x=1"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Your Transcriptions" })).toBeInTheDocument();
    expect(router.state.location.href).toBe("/dashboard?x=1");
    expect(window.localStorage.getItem("auth-redirect")).toBeNull();
    expect(identifyUser).toHaveBeenCalledWith({ id: "user-1", email: "ada@example.com" });
    // The gate and the layout share one cached answer (the page's own data calls aside).
    expect(network.calls.filter((call) => call.startsWith("GET /auth/"))).toEqual(["GET /auth/get-session"]);
  });

  it("accepts ?subscription=success on the dashboard, then drops it once it has been acted on", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER), ...billingAnswers() });
    const { router } = renderApp(["/dashboard?subscription=success"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Your Transcriptions" })).toBeInTheDocument();
    // The success toast (tests/billing-screens) is the parameter's effect; a reload must not repeat it.
    await waitFor(() => expect(router.state.location.href).toBe("/dashboard"));
    expect(dashboardSearch(router)).toEqual({});
  });

  it("drops any other subscription value instead of failing the page", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/dashboard?subscription=nope&x=1"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Your Transcriptions" })).toBeInTheDocument();
    expect(dashboardSearch(router)).toEqual({ subscription: undefined, x: 1 });
    // Gone from the address bar too, so a bookmark does not keep the bad value.
    expect(router.state.location.href).toBe("/dashboard?x=1");
    expect(screen.queryByText("Something went wrong")).not.toBeInTheDocument();
  });

  it("sends the user to sign-in when the API says the session ended", async () => {
    const network = stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/support"]);
    expect(await screen.findByRole("heading", { level: 1, name: "Support" })).toBeInTheDocument();

    network.answer("GET /auth/get-session", sessionAnswer(null));
    network.answer("GET /api/v1/transcriptions", () => json({ error: { code: "unauthenticated", message: "Sign in" } }, 401));
    await act(() => api.request({ path: "/transcriptions" }).catch(() => undefined));

    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(router.state.location.search).toEqual({ redirect: "/support" });
    expect(window.localStorage.getItem("auth-redirect")).toBe("/support");
  });

  it("checks again on the next protected page once a 401 invalidated the session", async () => {
    const network = stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/dashboard"]);
    expect(await screen.findByRole("heading", { level: 1, name: "Your Transcriptions" })).toBeInTheDocument();
    await act(() => router.navigate({ to: "/terms" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Terms of Service" })).toBeInTheDocument();

    // Signed out elsewhere while on a public page: nothing is watching the session now.
    network.answer("GET /auth/get-session", sessionAnswer(null));
    network.answer("GET /api/v1/transcriptions", () => json({ error: { code: "unauthenticated", message: "Sign in" } }, 401));
    await act(() => api.request({ path: "/transcriptions" }).catch(() => undefined));
    await act(() => router.navigate({ to: "/account" }));

    // Turned away by the gate itself, before the page could show the previous user's screen.
    expect(screen.queryByRole("heading", { level: 1, name: "Account Settings" })).not.toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(router.state.location.search).toEqual({ redirect: "/account" });
  });

  it("does not treat a 403 as a lost session", async () => {
    const network = stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/account"]);
    expect(await screen.findByRole("heading", { level: 1, name: "Account Settings" })).toBeInTheDocument();

    network.answer("POST /api/v1/anything", () => json({ detail: { code: "SESSION_NOT_FRESH", message: "Session is not fresh" } }, 403));
    await act(() => api.request({ method: "POST", path: "/anything" }).catch(() => undefined));

    expect(network.calls.filter((call) => call === "GET /auth/get-session")).toHaveLength(1);
    expect(router.state.location.pathname).toBe("/account");
  });
});

describe("home page with a redirect", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("takes a visitor who is signed in after all to the page they wanted", async () => {
    window.localStorage.setItem("auth-redirect", "/account");
    stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/?redirect=%2Faccount"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Account Settings" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/account");
    expect(window.localStorage.getItem("auth-redirect")).toBeNull();
  });

  it("never follows a redirect off the site", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    const { router } = renderApp(["/?redirect=%2F%2Fevil.com"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Transcribe" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/");
  });

  it("stays on the home page for a visitor who is not signed in", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    const { router } = renderApp(["/?redirect=%2Faccount"]);

    expect(await screen.findByText("Sign in to continue to the page you opened.")).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/");
  });
});
