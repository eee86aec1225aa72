import { createMemoryHistory, createRootRoute, createRoute, createRouter, RouterProvider } from "@tanstack/react-router";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppErrorBoundary } from "../src/components/AppErrorBoundary";
import { COPY_CONFIRMATION_MS, ErrorScreen } from "../src/components/ErrorScreen";
import { RouteErrorScreen } from "../src/components/RouteErrorScreen";

const EXPLANATION = "We're sorry, but something unexpected happened. Please try refreshing the page.";

describe("error screen", () => {
  afterEach(() => vi.restoreAllMocks());

  it("shows the exact texts, 'Reload page' and 'Go home' to /", () => {
    render(<ErrorScreen error={new Error("boom")} />);

    expect(screen.getByRole("heading", { level: 1, name: "Something went wrong" })).toBeInTheDocument();
    expect(screen.getByText(EXPLANATION)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reload page" })).toBeEnabled();
    expect(screen.getByRole("link", { name: "Go home" })).toHaveAttribute("href", "/");
  });

  it("offers 'Try again' only when a reset is available", () => {
    const { unmount } = render(<ErrorScreen error={new Error("boom")} />);
    expect(screen.queryByRole("button", { name: "Try again" })).not.toBeInTheDocument();
    unmount();

    const reset = vi.fn();
    render(<ErrorScreen error={new Error("boom")} reset={reset} />);
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(reset).toHaveBeenCalledTimes(1);
  });

  it("shows the copy button disabled, so nothing is copied", () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(<ErrorScreen error={new Error("boom")} />);

    const copy = screen.getByRole("button", { name: "Copy error details" });
    expect(copy).toBeDisabled();
    fireEvent.click(copy);
    expect(writeText).not.toHaveBeenCalled();
  });

  it("keeps the copy confirmation for 2000 ms", () => {
    expect(COPY_CONFIRMATION_MS).toBe(2000);
  });

  it("moves focus to the heading so the failure is announced", () => {
    render(<ErrorScreen />);
    expect(screen.getByRole("heading", { name: "Something went wrong" })).toHaveFocus();
  });
});

function Bomb({ explode }: { explode: boolean }) {
  if (explode) throw new Error("render exploded");
  return <p>Recovered content</p>;
}

describe("app error boundary", () => {
  afterEach(() => vi.restoreAllMocks());

  it("replaces a crashed tree with the error screen and 'Try again' re-renders it", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let fix = () => {};
    function Harness() {
      const [explode, setExplode] = useState(true);
      fix = () => setExplode(false);
      return (
        <AppErrorBoundary>
          <Bomb explode={explode} />
        </AppErrorBoundary>
      );
    }
    render(<Harness />);

    expect(screen.getByRole("heading", { name: "Something went wrong" })).toBeInTheDocument();
    fix();
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(screen.getByText("Recovered content")).toBeInTheDocument();
  });
});

describe("route error screen", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is shown when a route fails to load, with 'Try again'", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const rootRoute = createRootRoute({ errorComponent: RouteErrorScreen });
    const failing = createRoute({
      getParentRoute: () => rootRoute,
      path: "/",
      loader: () => {
        throw new Error("loader failed");
      },
      component: () => <p>never shown</p>,
    });
    const router = createRouter({
      routeTree: rootRoute.addChildren([failing]),
      history: createMemoryHistory({ initialEntries: ["/"] }),
    });
    render(<RouterProvider router={router} />);

    const screenRegion = (await screen.findByRole("heading", { name: "Something went wrong" })).closest("section");
    expect(screenRegion).not.toBeNull();
    expect(within(screenRegion!).getByRole("button", { name: "Try again" })).toBeInTheDocument();
    expect(screen.queryByText("never shown")).not.toBeInTheDocument();
  });
});
