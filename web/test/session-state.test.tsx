import { QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAppQueryClient } from "../src/app/query-client";
import { ApiError } from "../src/lib/api/errors";
import { toSessionState, type SessionState } from "../src/lib/session/state";
import { useSession } from "../src/lib/session/use-session";
import { serverError, sessionAnswer, stubNetwork, TEST_SESSION, TEST_USER } from "./fake-network";

const session = { session: TEST_SESSION, user: TEST_USER };

describe("session state mapping", () => {
  it("is loading while the first answer is pending", () => {
    expect(toSessionState({ isPending: true, data: undefined, error: null })).toEqual({ status: "loading" });
  });

  it("is authenticated with the user when the session has one", () => {
    expect(toSessionState({ isPending: false, data: session, error: null })).toEqual({ status: "authenticated", user: TEST_USER });
  });

  it("is unauthenticated when the server says nobody is signed in", () => {
    expect(toSessionState({ isPending: false, data: null, error: null })).toEqual({ status: "unauthenticated" });
  });

  it("is error, without a user, when the check failed", () => {
    const error = new ApiError("http", "Internal error", 500);
    expect(toSessionState({ isPending: false, data: undefined, error })).toEqual({ status: "error", error });
    expect(toSessionState({ isPending: false, data: null, error })).toEqual({ status: "error", error });
  });

  it("stays authenticated when only a background refetch failed", () => {
    const error = new ApiError("network", "offline");
    expect(toSessionState({ isPending: false, data: session, error })).toEqual({ status: "authenticated", user: TEST_USER });
  });
});

function Probe() {
  const state: SessionState = useSession();
  return <p data-testid="state">{state.status === "authenticated" ? `authenticated:${state.user.email}` : state.status}</p>;
}

function renderProbe() {
  const queryClient = createAppQueryClient();
  render(
    <QueryClientProvider client={queryClient}>
      <Probe />
    </QueryClientProvider>,
  );
}

describe("useSession against GET /auth/get-session", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("goes from loading to authenticated", async () => {
    const network = stubNetwork({ "GET /auth/get-session": sessionAnswer(TEST_USER) });
    renderProbe();
    expect(screen.getByTestId("state")).toHaveTextContent("loading");
    expect(await screen.findByText("authenticated:ada@example.com")).toBeInTheDocument();
    expect(network.calls).toEqual(["GET /auth/get-session"]);
  });

  it("is unauthenticated when the answer is null", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) });
    renderProbe();
    expect(await screen.findByText("unauthenticated")).toBeInTheDocument();
  });

  it("is error when the check fails, without retrying", async () => {
    const network = stubNetwork({ "GET /auth/get-session": serverError });
    renderProbe();
    expect(await screen.findByText("error")).toBeInTheDocument();
    expect(network.calls).toHaveLength(1);
  });
});
