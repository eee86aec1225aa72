import { fireEvent, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { capture } from "../src/lib/analytics";
import { renderApp } from "./render-app";

vi.mock("../src/lib/analytics", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../src/lib/analytics")>()),
  capture: vi.fn(),
}));

describe("not-found screen", () => {
  beforeEach(() => vi.mocked(capture).mockClear());

  it("shows the exact texts and a link to the homepage", async () => {
    renderApp(["/no-such-page"]);

    expect(await screen.findByRole("heading", { level: 1, name: "Page Not Found" })).toBeInTheDocument();
    expect(screen.getByText("The page you're looking for doesn't exist or has been moved.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Go back" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Return to homepage" })).toHaveAttribute("href", "/");
  });

  it("records a 404 page view carrying the path", async () => {
    renderApp(["/missing/deeper?x=1"]);

    await screen.findByRole("heading", { name: "Page Not Found" });
    expect(capture).toHaveBeenCalledWith("404_page_view", { path: "/missing/deeper" });
  });

  it("is also used below a layout route", async () => {
    renderApp(["/terms/extra"]);

    expect(await screen.findByRole("heading", { name: "Page Not Found" })).toBeInTheDocument();
    expect(capture).toHaveBeenCalledWith("404_page_view", { path: "/terms/extra" });
  });

  it("'Go back' goes back in history", async () => {
    const { history } = renderApp(["/privacy", "/gone"]);
    const back = vi.spyOn(history, "back");

    fireEvent.click(await screen.findByRole("button", { name: "Go back" }));

    expect(back).toHaveBeenCalledTimes(1);
    expect(await screen.findByRole("heading", { level: 1, name: "Privacy Policy" })).toBeInTheDocument();
    expect(screen.queryByText("Page Not Found")).not.toBeInTheDocument();
  });

  it("'Return to homepage' navigates to /", async () => {
    renderApp(["/gone"]);

    fireEvent.click(await screen.findByRole("link", { name: "Return to homepage" }));

    expect(await screen.findByRole("heading", { level: 1, name: "Transcribe" })).toBeInTheDocument();
  });
});
