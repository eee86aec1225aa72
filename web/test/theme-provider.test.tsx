import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ThemeProvider, useTheme } from "../src/theme/ThemeProvider";

function ThemeProbe() {
  const { theme, resolvedTheme, setTheme } = useTheme();
  return (
    <>
      <p>
        {theme}/{resolvedTheme}
      </p>
      <button onClick={() => setTheme("dark")}>dark</button>
      <button onClick={() => setTheme("system")}>system</button>
    </>
  );
}

function stubSystemDark(dark: boolean) {
  vi.stubGlobal("matchMedia", (query: string) => ({
    matches: dark && query === "(prefers-color-scheme: dark)",
    media: query,
    addEventListener: () => {},
    removeEventListener: () => {},
  }));
}

describe("theme provider", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("defaults to light and puts the class on <html>", () => {
    render(
      <ThemeProvider>
        <ThemeProbe />
      </ThemeProvider>,
    );
    expect(screen.getByText("light/light")).toBeInTheDocument();
    expect(document.documentElement).toHaveClass("light");
  });

  it("remembers the choice under 'vite-ui-theme'", () => {
    render(
      <ThemeProvider>
        <ThemeProbe />
      </ThemeProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: "dark" }));
    expect(window.localStorage.getItem("vite-ui-theme")).toBe("dark");
    expect(document.documentElement).toHaveClass("dark");
    expect(document.documentElement).not.toHaveClass("light");
  });

  it("'system' follows the OS dark preference", () => {
    stubSystemDark(true);
    window.localStorage.setItem("vite-ui-theme", "system");
    render(
      <ThemeProvider>
        <ThemeProbe />
      </ThemeProvider>,
    );
    expect(screen.getByText("system/dark")).toBeInTheDocument();
    expect(document.documentElement).toHaveClass("dark");
  });

  it("ignores a corrupt stored value", () => {
    window.localStorage.setItem("vite-ui-theme", "purple");
    render(
      <ThemeProvider>
        <ThemeProbe />
      </ThemeProvider>,
    );
    expect(screen.getByText("light/light")).toBeInTheDocument();
  });
});
