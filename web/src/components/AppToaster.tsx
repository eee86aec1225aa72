// Toast area with the spec's limits (docs/requirements.md "States", "Limits"; values in lib/toast-config) and the app's own
// icons for the five toast styles, so toasts match the rest of the UI in both themes.
import type { CSSProperties, ReactNode } from "react";
import { Toaster, type ToasterProps } from "sonner";
import {
  TOAST_DURATION_MS,
  TOAST_GAP_PX,
  TOAST_HOTKEY,
  TOAST_VISIBLE_MAX,
  TOAST_WIDTH_PX,
  type ToastType,
} from "../lib/toast-config";
import { useTheme } from "../theme/ThemeProvider";
import { Spinner } from "./ui/Spinner";

function ToastIcon({ type, children }: { type: Exclude<ToastType, "loading">; children: ReactNode }) {
  return (
    <svg
      className={`toast-icon toast-icon-${type}`}
      data-toast-icon={type}
      viewBox="0 0 20 20"
      width="20"
      height="20"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      {children}
    </svg>
  );
}

export const TOAST_ICONS: Record<ToastType, ReactNode> = {
  success: (
    <ToastIcon type="success">
      <circle cx="10" cy="10" r="8" />
      <path d="m6.5 10.2 2.3 2.3 4.7-4.9" />
    </ToastIcon>
  ),
  error: (
    <ToastIcon type="error">
      <circle cx="10" cy="10" r="8" />
      <path d="m7.5 7.5 5 5m0-5-5 5" />
    </ToastIcon>
  ),
  warning: (
    <ToastIcon type="warning">
      <path d="M10 2.8 18 17H2L10 2.8Z" />
      <path d="M10 8v4m0 2.6v.1" />
    </ToastIcon>
  ),
  info: (
    <ToastIcon type="info">
      <circle cx="10" cy="10" r="8" />
      <path d="M10 9v5m0-7.6v.1" />
    </ToastIcon>
  ),
  loading: <Spinner size="sm" className="toast-icon toast-icon-loading" />,
};

/** Everything but the theme, exported so tests render exactly what the app renders. */
export const TOASTER_PROPS = {
  duration: TOAST_DURATION_MS,
  visibleToasts: TOAST_VISIBLE_MAX,
  gap: TOAST_GAP_PX,
  hotkey: [...TOAST_HOTKEY],
  // Sonner has no width prop; its stylesheet reads this variable, which it sets to the same
  // default. Setting it here keeps the spec's width if sonner's default ever moves.
  style: { "--width": `${TOAST_WIDTH_PX}px` } as CSSProperties,
  icons: TOAST_ICONS,
  richColors: true,
  closeButton: true,
} satisfies ToasterProps;

export function AppToaster() {
  const { resolvedTheme } = useTheme();
  return <Toaster theme={resolvedTheme} {...TOASTER_PROPS} />;
}
