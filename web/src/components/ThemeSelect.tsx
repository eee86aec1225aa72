// Theme picker: a menu of radio items, so assistive technology announces which of the three
// choices is current, and the keyboard works as in any menu (arrows, Enter, Escape).
import { THEMES, isTheme, useTheme, type ResolvedTheme, type Theme } from "../theme/ThemeProvider";
import { Button } from "./ui/Button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuTrigger,
} from "./ui/DropdownMenu";

export const THEME_LABELS: Record<Theme, string> = { light: "Light", dark: "Dark", system: "System" };

function ThemeIcon({ theme }: { theme: ResolvedTheme }) {
  return (
    <svg viewBox="0 0 20 20" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
      {theme === "dark" ? (
        <path d="M16.5 12.3A7 7 0 0 1 7.7 3.5a7 7 0 1 0 8.8 8.8Z" strokeLinejoin="round" />
      ) : (
        <>
          <circle cx="10" cy="10" r="3.5" />
          <path
            d="M10 1.5v2m0 13v2m8.5-8.5h-2m-13 0h-2m14.5-6-1.4 1.4M5.1 14.9l-1.4 1.4m12.6 0-1.4-1.4M5.1 5.1 3.7 3.7"
            strokeLinecap="round"
          />
        </>
      )}
    </svg>
  );
}

export function ThemeSelect() {
  const { theme, resolvedTheme, setTheme } = useTheme();
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="sm" className="theme-select">
          <ThemeIcon theme={resolvedTheme} />
          Theme: {THEME_LABELS[theme]}
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent>
        <DropdownMenuLabel>Theme</DropdownMenuLabel>
        <DropdownMenuRadioGroup value={theme} onValueChange={(value) => isTheme(value) && setTheme(value)}>
          {THEMES.map((option) => (
            <DropdownMenuRadioItem key={option} value={option}>
              {THEME_LABELS[option]}
            </DropdownMenuRadioItem>
          ))}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
