import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ThemeSelect } from "../src/components/ThemeSelect";
import { DARK_SCHEME_QUERY, ThemeProvider, useTheme, type Theme } from "../src/theme/ThemeProvider";
import { renderApp } from "./render-app";

function ThemeProbe() {
  const { theme, resolvedTheme, setTheme } = useTheme();
  return (
    <>
      <p>
        {theme}/{resolvedTheme}
      </p>
      <button type="button" onClick={() => setTheme("light")}>light</button>
      <button type="button" onClick={() => setTheme("dark")}>dark</button>
      <button type="button" onClick={() => setTheme("system")}>system</button>
    </>
  );
}

function renderProvider(props: { defaultTheme?: Theme; storageKey?: string } = {}) {
  return render(
    <ThemeProvider {...props}>
      <ThemeProbe />
    </ThemeProvider>,
  );
}

/** A matchMedia whose OS dark preference the test flips, notifying listeners as a browser does. */
function stubSystemScheme(initiallyDark: boolean) {
  let dark = initiallyDark;
  const listeners = new Set<(event: MediaQueryListEvent) => void>();
  vi.stubGlobal("matchMedia", (query: string) => ({
    get matches() {
      return query === DARK_SCHEME_QUERY && dark;
    },
    media: query,
    addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => listeners.delete(listener),
  }));
  return {
    setDark(next: boolean) {
      dark = next;
      act(() => listeners.forEach((listener) => listener({ matches: next, media: DARK_SCHEME_QUERY } as MediaQueryListEvent)));
    },
    listenerCount: () => listeners.size,
  };
}

const html = () => document.documentElement;

describe("theme provider", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("the app starts light, even when the OS prefers dark", async () => {
    stubSystemScheme(true);
    renderApp(["/"]);
    await screen.findByRole("heading", { level: 1 });
    expect(html()).toHaveClass("light");
    expect(html()).not.toHaveClass("dark");
  });

  it("with defaultTheme light: light, and the class is on <html>", () => {
    renderProvider({ defaultTheme: "light" });
    expect(screen.getByText("light/light")).toBeInTheDocument();
    expect(html()).toHaveClass("light");
  });

  it("without a default, the provider falls back to 'system'", () => {
    stubSystemScheme(true);
    renderProvider();
    expect(screen.getByText("system/dark")).toBeInTheDocument();
    expect(html()).toHaveClass("dark");
  });

  it("remembers the choice under 'vite-ui-theme' and restores it on the next start", () => {
    const first = renderProvider({ defaultTheme: "light" });
    fireEvent.click(screen.getByRole("button", { name: "dark" }));
    expect(window.localStorage.getItem("vite-ui-theme")).toBe("dark");
    expect(html()).toHaveClass("dark");
    expect(html()).not.toHaveClass("light");
    first.unmount();
    html().className = "";

    renderProvider({ defaultTheme: "light" });
    expect(screen.getByText("dark/dark")).toBeInTheDocument();
    expect(html()).toHaveClass("dark");
  });

  it("uses the configured storage key", () => {
    window.localStorage.setItem("my-theme", "dark");
    renderProvider({ defaultTheme: "light", storageKey: "my-theme" });
    expect(screen.getByText("dark/dark")).toBeInTheDocument();
    fireEvent.click(screen.getByRole("button", { name: "system" }));
    expect(window.localStorage.getItem("my-theme")).toBe("system");
    expect(window.localStorage.getItem("vite-ui-theme")).toBeNull();
  });

  it("'system' follows the OS preference live, without a reload", () => {
    const os = stubSystemScheme(false);
    window.localStorage.setItem("vite-ui-theme", "system");
    renderProvider({ defaultTheme: "light" });
    expect(screen.getByText("system/light")).toBeInTheDocument();
    expect(html()).toHaveClass("light");

    os.setDark(true);
    expect(screen.getByText("system/dark")).toBeInTheDocument();
    expect(html()).toHaveClass("dark");
    expect(html()).not.toHaveClass("light");

    os.setDark(false);
    expect(html()).toHaveClass("light");
    expect(html()).not.toHaveClass("dark");
  });

  it("an explicit choice ignores OS changes", () => {
    const os = stubSystemScheme(false);
    renderProvider({ defaultTheme: "light" });
    os.setDark(true);
    expect(screen.getByText("light/light")).toBeInTheDocument();
    expect(html()).toHaveClass("light");
  });

  it("stops listening to the OS when unmounted", () => {
    const os = stubSystemScheme(false);
    const view = renderProvider();
    expect(os.listenerCount()).toBe(1);
    view.unmount();
    expect(os.listenerCount()).toBe(0);
  });

  it("ignores a corrupt stored value", () => {
    window.localStorage.setItem("vite-ui-theme", "purple");
    renderProvider({ defaultTheme: "light" });
    expect(screen.getByText("light/light")).toBeInTheDocument();
  });

  it("keeps working when storage throws", () => {
    vi.spyOn(Storage.prototype, "getItem").mockImplementation(() => {
      throw new DOMException("denied", "SecurityError");
    });
    vi.spyOn(Storage.prototype, "setItem").mockImplementation(() => {
      throw new DOMException("denied", "SecurityError");
    });
    renderProvider({ defaultTheme: "light" });
    fireEvent.click(screen.getByRole("button", { name: "dark" }));
    expect(html()).toHaveClass("dark");
  });

  it("follows a change made in another tab", () => {
    renderProvider({ defaultTheme: "light" });
    act(() => {
      window.dispatchEvent(new StorageEvent("storage", { key: "vite-ui-theme", newValue: "dark" }));
    });
    expect(screen.getByText("dark/dark")).toBeInTheDocument();
    expect(html()).toHaveClass("dark");
  });
});

describe("theme select", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("offers the three themes as a menu of radio items and applies the pick", async () => {
    render(
      <ThemeProvider defaultTheme="light">
        <ThemeSelect />
      </ThemeProvider>,
    );
    const trigger = screen.getByRole("button", { name: "Theme: Light" });
    expect(trigger).toHaveAttribute("aria-haspopup", "menu");

    // Keyboard only: Enter opens the menu, as a keyboard user would.
    fireEvent.keyDown(trigger, { key: "Enter" });
    const items = await screen.findAllByRole("menuitemradio");
    expect(items).toEqual(["Light", "Dark", "System"].map((name) => screen.getByRole("menuitemradio", { name })));
    expect(screen.getByRole("menuitemradio", { name: "Light" })).toHaveAttribute("aria-checked", "true");
    expect(screen.getByRole("menuitemradio", { name: "Dark" })).toHaveAttribute("aria-checked", "false");

    fireEvent.click(screen.getByRole("menuitemradio", { name: "Dark" }));
    expect(html()).toHaveClass("dark");
    expect(window.localStorage.getItem("vite-ui-theme")).toBe("dark");
    expect(screen.getByRole("button", { name: "Theme: Dark" })).toBeInTheDocument();
  });
});
