// Toast limits from the spec (docs/requirements.md "States", "Limits"), in one place. Sonner takes some of them as props;
// the others are constants inside sonner itself (SWIPE_THRESHOLD, TIME_BEFORE_UNMOUNT)
// with no prop. Those are listed here too, so test/toast-config.test.tsx can check the
// installed sonner still uses them: an upgrade that changes one fails a test rather than
// silently changing the product.

/** Auto-dismiss after this long; sonner pauses the timer while the toasts are hovered or touched. */
export const TOAST_DURATION_MS = 4000;
export const TOAST_VISIBLE_MAX = 3;
/** Set through sonner's `--width` CSS variable (it has no width prop). */
export const TOAST_WIDTH_PX = 356;
export const TOAST_GAP_PX = 14;
/** Sonner's `hotkey` prop: key codes that must all be held; focuses and expands the toasts. */
export const TOAST_HOTKEY = ["altKey", "KeyT"] as const;

// Built into sonner, not settable:
/** Distance a toast must be swiped to dismiss it. */
export const TOAST_SWIPE_THRESHOLD_PX = 45;
/** Time between a toast being dismissed and leaving the DOM (its exit animation). */
export const TOAST_REMOVAL_DELAY_MS = 200;

export const TOAST_TYPES = ["success", "error", "warning", "info", "loading"] as const;
export type ToastType = (typeof TOAST_TYPES)[number];
