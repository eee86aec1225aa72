import { act, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mountApp } from "../src/app/mount";
import { AppErrorBoundary } from "../src/components/AppErrorBoundary";
import type { Root } from "react-dom/client";

const mounted: Root[] = [];

afterEach(() => {
  act(() => mounted.splice(0).forEach((root) => root.unmount()));
  document.body.innerHTML = "";
  vi.restoreAllMocks();
  vi.resetModules();
});

function addRoot(html = ""): HTMLElement {
  document.body.innerHTML = `<div id="root">${html}</div>`;
  return document.getElementById("root")!;
}

describe("mountApp", () => {
  it("refuses to mount into a non-empty root and leaves it untouched", () => {
    const root = addRoot("<p>already here</p>");
    const renderApp = vi.fn(() => <p>app</p>);

    expect(mountApp(root, renderApp)).toBeNull();
    expect(renderApp).not.toHaveBeenCalled();
    expect(root.innerHTML).toBe("<p>already here</p>");
  });

  it("mounts into an empty root", async () => {
    const root = addRoot();
    let handle: Root | null = null;
    act(() => {
      handle = mountApp(root, () => <p>app is here</p>);
    });
    expect(handle).not.toBeNull();
    mounted.push(handle!);
    expect(await screen.findByText("app is here")).toBeInTheDocument();
  });

  it("fails clearly when the root element is missing", () => {
    expect(() => mountApp(null, () => null)).toThrow(/#root element is missing/);
  });

  it("logs render errors with the component stack", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    function ExplodingWidget(): never {
      throw new Error("widget broke");
    }
    const root = addRoot();
    act(() => {
      mounted.push(
        mountApp(root, () => (
          <AppErrorBoundary>
            <ExplodingWidget />
          </AppErrorBoundary>
        ))!,
      );
    });

    const logged = error.mock.calls.find((args) => args[0] === "Uncaught render error:");
    expect(logged).toBeDefined();
    expect((logged![1] as Error).message).toBe("widget broke");
    expect(String(logged![2])).toMatch(/Component stack:[\s\S]*ExplodingWidget/);
    expect(screen.getByRole("heading", { name: "Something went wrong" })).toBeInTheDocument();
  });
});

describe("main entry point", () => {
  it("does not mount into a non-empty root", async () => {
    const root = addRoot("<p>server markup</p>");
    await act(async () => {
      await import("../src/main");
    });
    expect(root.innerHTML).toBe("<p>server markup</p>");
  });

  it("mounts the app and shows the home page", async () => {
    addRoot();
    await act(async () => {
      await import("../src/main");
    });
    expect(await screen.findByRole("heading", { level: 1, name: "Transcribe" })).toBeInTheDocument();
    // The main module keeps no handle, so clear the DOM it rendered into.
    act(() => {
      document.getElementById("root")!.remove();
    });
  });
});
