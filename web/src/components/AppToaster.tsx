// Toast area with the spec's limits (§4, §9): 4 s, at most three visible.
import { Toaster } from "sonner";
import { useTheme } from "../theme/ThemeProvider";

export const TOAST_DURATION_MS = 4000;
export const MAX_VISIBLE_TOASTS = 3;

export function AppToaster() {
  const { resolvedTheme } = useTheme();
  return <Toaster theme={resolvedTheme} duration={TOAST_DURATION_MS} visibleToasts={MAX_VISIBLE_TOASTS} richColors closeButton />;
}
