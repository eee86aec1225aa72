// Site-wide theme (docs/requirements.md "Entities", "States"). The preference is kept in localStorage so it survives
// reloads, and is applied as a class on <html> so plain CSS can switch variables without
// any React involvement.
import { createContext, use, useCallback, useEffect, useLayoutEffect, useMemo, useState, type ReactNode } from "react";

export type Theme = "light" | "dark" | "system";
export type ResolvedTheme = "light" | "dark";

export const THEMES: readonly Theme[] = ["light", "dark", "system"];
export const DEFAULT_THEME_STORAGE_KEY = "vite-ui-theme";
/** The app starts light (set in App); a provider used without a default follows the OS. */
export const APP_DEFAULT_THEME: Theme = "light";
export const PROVIDER_FALLBACK_THEME: Theme = "system";

export const DARK_SCHEME_QUERY = "(prefers-color-scheme: dark)";

interface ThemeContextValue {
  theme: Theme;
  resolvedTheme: ResolvedTheme;
  setTheme: (theme: Theme) => void;
}

const ThemeContext = createContext<ThemeContextValue | null>(null);

export function isTheme(value: unknown): value is Theme {
  return typeof value === "string" && (THEMES as readonly string[]).includes(value);
}

// Storage can throw (private mode, disabled cookies); a theme is never worth a crash.
function readStoredTheme(storageKey: string): Theme | undefined {
  try {
    const stored = window.localStorage.getItem(storageKey);
    return isTheme(stored) ? stored : undefined;
  } catch {
    return undefined;
  }
}

function storeTheme(storageKey: string, theme: Theme): void {
  try {
    window.localStorage.setItem(storageKey, theme);
  } catch {
    // The choice still applies for this visit.
  }
}

function darkSchemeQuery(): MediaQueryList | undefined {
  return typeof window.matchMedia === "function" ? window.matchMedia(DARK_SCHEME_QUERY) : undefined;
}

/** Tracks the OS colour scheme live, so 'system' follows a change without a reload. */
function useSystemPrefersDark(): boolean {
  const [prefersDark, setPrefersDark] = useState(() => darkSchemeQuery()?.matches ?? false);
  useEffect(() => {
    const query = darkSchemeQuery();
    if (!query) return;
    const onChange = (event: MediaQueryListEvent) => setPrefersDark(event.matches);
    // The OS may have changed between the first render and this effect.
    setPrefersDark(query.matches);
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, []);
  return prefersDark;
}

export interface ThemeProviderProps {
  children: ReactNode;
  defaultTheme?: Theme;
  storageKey?: string;
}

export function ThemeProvider({
  children,
  defaultTheme = PROVIDER_FALLBACK_THEME,
  storageKey = DEFAULT_THEME_STORAGE_KEY,
}: ThemeProviderProps) {
  const [theme, setThemeState] = useState<Theme>(() => readStoredTheme(storageKey) ?? defaultTheme);
  const prefersDark = useSystemPrefersDark();
  const resolvedTheme: ResolvedTheme = theme === "system" ? (prefersDark ? "dark" : "light") : theme;

  // Layout effect: the class must be on <html> before the browser paints, so neither the
  // first frame nor the frame after a switch shows the other theme's colours.
  useLayoutEffect(() => {
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    root.classList.add(resolvedTheme);
  }, [resolvedTheme]);

  // Another tab changed the preference: follow it, so tabs never disagree after a reload.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== storageKey) return;
      setThemeState(isTheme(event.newValue) ? event.newValue : defaultTheme);
    };
    window.addEventListener("storage", onStorage);
    return () => window.removeEventListener("storage", onStorage);
  }, [storageKey, defaultTheme]);

  const setTheme = useCallback(
    (next: Theme) => {
      storeTheme(storageKey, next);
      setThemeState(next);
    },
    [storageKey],
  );

  const value = useMemo(() => ({ theme, resolvedTheme, setTheme }), [theme, resolvedTheme, setTheme]);
  return <ThemeContext value={value}>{children}</ThemeContext>;
}

export function useTheme(): ThemeContextValue {
  const context = use(ThemeContext);
  if (!context) throw new Error("useTheme must be used inside <ThemeProvider>");
  return context;
}
