import { createMemoryHistory, createRootRoute, createRoute, createRouter, RouterProvider } from "@tanstack/react-router";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { TranscriptErrorScreen } from "../src/components/TranscriptErrorScreen";
import { RouteErrorScreen } from "../src/components/RouteErrorScreen";
import { ApiError } from "../src/lib/api/errors";
import { identifyUser } from "../src/lib/analytics";
import { Route as TranscriptRoute } from "../src/routes/_authenticated/transcript.$id";
import { Route as RootRoute } from "../src/routes/__root";
import { json, sessionAnswer, stubNetwork, TEST_USER, type FakeUser } from "./fake-network";
import { renderApp } from "./render-app";

vi.mock("../src/lib/analytics", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../src/lib/analytics")>()),
  identifyUser: vi.fn(),
}));

beforeAll(() => {
  // Radix measures the menu with ResizeObserver, which jsdom lacks.
  window.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
});

const TRANSCRIPT_ABC = {
  id: "abc",
  display_name: "Team meeting",
  status: "completed",
  config: { model: "whisper-base", language: "en", timestamp_granularities: ["segment"], diarize: false },
  audio_file: { file_id: "f1", file_name: "meeting.mp3", content_type: "audio/mpeg" },
  result: { id: "r1", text: "Hello.", language: "en", duration: 2, revision: 1, speakers: [], speaker_turns: [], segments: [{ id: 0, start: 0, end: 2, text: "Hello." }] },
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z",
};

async function signedInAt(url: string, user: FakeUser = TEST_USER) {
  const network = stubNetwork({
    "GET /auth/get-session": sessionAnswer(user),
    "GET /api/v1/transcriptions/abc": () => json(TRANSCRIPT_ABC),
  });
  const app = renderApp([url]);
  await screen.findByRole("navigation", { name: "Main" });
  return { ...app, network };
}

function openUserMenu(name: string) {
  fireEvent.keyDown(screen.getByRole("button", { name }), { key: "Enter" });
  return screen.findByRole("menu");
}

describe("protected pages", () => {
  afterEach(() => vi.unstubAllGlobals());

  it.each([
    ["/dashboard", "Your Transcriptions", "Your Transcriptions"],
    ["/account", "Account Settings", "Account Settings"],
    ["/support", "Support", "Support"],
    // The transcript page's heading is the transcript's own (renamable) name.
    ["/transcript/abc", "Transcript", "Team meeting"],
  ])("%s is titled '%s | Transcribe'", async (url, title, heading) => {
    await signedInAt(url);
    expect(await screen.findByRole("heading", { level: 1, name: heading })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe(`${title} | Transcribe`));
  });

  it("links to the dashboard, account and support pages", async () => {
    await signedInAt("/support");
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(within(nav).getByRole("link", { name: "Account" })).toHaveAttribute("href", "/account");
    expect(within(nav).getByRole("link", { name: "Support" })).toHaveAttribute("href", "/support");

    fireEvent.click(within(nav).getByRole("link", { name: "Account" }));
    expect(await screen.findByRole("heading", { level: 1, name: "Account Settings" })).toBeInTheDocument();
  });
});

describe("user menu", () => {
  beforeEach(() => vi.mocked(identifyUser).mockClear());
  afterEach(() => vi.unstubAllGlobals());

  it("shows the display name and initials when there is no picture", async () => {
    await signedInAt("/dashboard");
    const trigger = screen.getByRole("button", { name: "Ada Lovelace" });
    expect(within(trigger).getByTestId("user-avatar")).toHaveTextContent("AL");
    expect(within(trigger).queryByRole("img")).not.toBeInTheDocument();
  });

  it("shows the picture when there is one, and initials if it fails to load", async () => {
    await signedInAt("/dashboard", { ...TEST_USER, image: "https://img.example.com/ada.png" });
    const avatar = within(screen.getByRole("button", { name: "Ada Lovelace" })).getByTestId("user-avatar");
    const image = avatar.querySelector("img");
    expect(image).toHaveAttribute("src", "https://img.example.com/ada.png");

    fireEvent.error(image!);
    expect(avatar.querySelector("img")).toBeNull();
    expect(avatar).toHaveTextContent("AL");
  });

  it("shows the e-mail when the name is really an e-mail address", async () => {
    await signedInAt("/dashboard", { ...TEST_USER, name: "ada@example.com" });
    const trigger = screen.getByRole("button", { name: "ada@example.com" });
    expect(within(trigger).getByTestId("user-avatar")).toHaveTextContent("A");
  });

  it("lists who is signed in, and 'Sign out' ends the session and goes home", async () => {
    const { router, network } = await signedInAt("/account");
    network.answer("POST /auth/sign-out", () => json({ success: true }));

    const menu = await openUserMenu("Ada Lovelace");
    expect(within(menu).getByText("ada@example.com")).toBeInTheDocument();
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Sign out" }));

    await waitFor(() => expect(router.state.location.href).toBe("/"));
    expect(await screen.findByRole("heading", { level: 1, name: "Transcribe" })).toBeInTheDocument();
    expect(network.calls).toContain("POST /auth/sign-out");
    expect(router.options.context.queryClient.getQueryData(["session"])).toBeUndefined();
    expect(identifyUser).toHaveBeenLastCalledWith(null);
    // Nothing to come back to: leaving was the user's choice.
    expect(window.localStorage.getItem("auth-redirect")).toBeNull();

    // The next protected page asks the server again instead of trusting a cached user.
    network.answer("GET /auth/get-session", sessionAnswer(null));
    await act(() => router.navigate({ to: "/dashboard" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(network.calls.filter((call) => call === "GET /auth/get-session")).toHaveLength(2);
  });

  it("stays signed in and says so when sign-out fails", async () => {
    const { router, network } = await signedInAt("/account");
    network.answer("POST /auth/sign-out", () => json({ error: { code: "internal", message: "Internal error" } }, 500));

    fireEvent.click(within(await openUserMenu("Ada Lovelace")).getByRole("menuitem", { name: "Sign out" }));

    expect(await screen.findByText("Could not sign out")).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/account");
    expect(screen.getByRole("heading", { level: 1, name: "Account Settings" })).toBeInTheDocument();
  });
});

describe("transcript error screen", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is the transcript route's own, not the root's", () => {
    expect(TranscriptRoute.options.errorComponent).toBe(TranscriptErrorScreen);
    expect(RootRoute.options.errorComponent).toBe(RouteErrorScreen);
  });

  it("explains the failure and leads back to the dashboard; 'Try again' reloads", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    let fail = true;
    const rootRoute = createRootRoute();
    const transcript = createRoute({
      getParentRoute: () => rootRoute,
      path: "/transcript/$id",
      loader: () => {
        if (fail) throw new ApiError("http", "Transcript not found", 404);
      },
      errorComponent: TranscriptErrorScreen,
      component: () => <p>transcript loaded</p>,
    });
    const router = createRouter({
      routeTree: rootRoute.addChildren([transcript]),
      history: createMemoryHistory({ initialEntries: ["/transcript/abc"] }),
    });
    render(<RouterProvider router={router} />);

    expect(await screen.findByRole("heading", { level: 1, name: "Could not load this transcript" })).toBeInTheDocument();
    expect(screen.getByText("Transcript not found")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to your transcriptions" })).toHaveAttribute("href", "/dashboard");
    expect(screen.queryByText("Something went wrong")).not.toBeInTheDocument();

    fail = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("transcript loaded")).toBeInTheDocument();
  });

  it("does not show the text of an unexpected error", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const rootRoute = createRootRoute();
    const transcript = createRoute({
      getParentRoute: () => rootRoute,
      path: "/",
      loader: () => {
        throw new TypeError("cannot read properties of undefined");
      },
      errorComponent: TranscriptErrorScreen,
    });
    const router = createRouter({ routeTree: rootRoute.addChildren([transcript]), history: createMemoryHistory() });
    render(<RouterProvider router={router} />);

    expect(await screen.findByText("It may have been deleted, or the connection was interrupted.")).toBeInTheDocument();
    expect(screen.queryByText(/cannot read properties/)).not.toBeInTheDocument();
  });
});
