// Stop-gap theme switch until the full picker lands; a native select is accessible for free.
import { THEMES, useTheme, type Theme } from "../theme/ThemeProvider";

const THEME_LABELS: Record<Theme, string> = { light: "Light", dark: "Dark", system: "System" };

export function ThemeSelect() {
  const { theme, setTheme } = useTheme();
  return (
    <label className="theme-select">
      <span>Theme</span>
      <select value={theme} onChange={(event) => setTheme(event.target.value as Theme)}>
        {THEMES.map((option) => (
          <option key={option} value={option}>
            {THEME_LABELS[option]}
          </option>
        ))}
      </select>
    </label>
  );
}
