// The toast area's limits (docs/requirements.md "States", "Limits"), checked against sonner's real behaviour: what
// sonner takes as props is asserted in the rendered DOM and by timing, what it keeps as
// internal constants is asserted by behaviour where jsdom allows and by its source.
import { act, fireEvent, render, screen } from "@testing-library/react";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { toast } from "sonner";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppToaster } from "../src/components/AppToaster";
import {
  TOAST_DURATION_MS,
  TOAST_GAP_PX,
  TOAST_HOTKEY,
  TOAST_REMOVAL_DELAY_MS,
  TOAST_SWIPE_THRESHOLD_PX,
  TOAST_TYPES,
  TOAST_VISIBLE_MAX,
  TOAST_WIDTH_PX,
} from "../src/lib/toast-config";
import { ThemeProvider } from "../src/theme/ThemeProvider";

function renderToaster() {
  return render(
    <ThemeProvider defaultTheme="light">
      <AppToaster />
    </ThemeProvider>,
  );
}

/** Sonner adds toasts on a timer; run it (and React's update) before looking. */
function flush(ms = 0) {
  act(() => {
    vi.advanceTimersByTime(ms);
  });
}

const toastItems = () => Array.from(document.querySelectorAll<HTMLElement>("[data-sonner-toast]"));
const toastList = () => document.querySelector<HTMLElement>("[data-sonner-toaster]")!;

describe("toast configuration values", () => {
  it("matches the spec", () => {
    expect(TOAST_DURATION_MS).toBe(4000);
    expect(TOAST_VISIBLE_MAX).toBe(3);
    expect(TOAST_WIDTH_PX).toBe(356);
    expect(TOAST_GAP_PX).toBe(14);
    expect(TOAST_SWIPE_THRESHOLD_PX).toBe(45);
    expect(TOAST_REMOVAL_DELAY_MS).toBe(200);
    expect(TOAST_HOTKEY).toEqual(["altKey", "KeyT"]);
    expect(TOAST_TYPES).toEqual(["success", "error", "warning", "info", "loading"]);
  });

  it("the installed sonner still has the built-in values the app cannot set", () => {
    // No prop exists for these; an upgrade that changes them must fail here, not in production.
    const source = readFileSync(createRequire(import.meta.url).resolve("sonner"), "utf8");
    const constant = (name: string) => Number(new RegExp(`const ${name} = (\\d+);`).exec(source)?.[1]);
    expect(constant("SWIPE_THRESHOLD")).toBe(TOAST_SWIPE_THRESHOLD_PX);
    expect(constant("TIME_BEFORE_UNMOUNT")).toBe(TOAST_REMOVAL_DELAY_MS);
    expect(constant("TOAST_WIDTH")).toBe(TOAST_WIDTH_PX);
  });
});

describe("app toaster", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "requestAnimationFrame", "cancelAnimationFrame"] });
  });

  afterEach(() => {
    act(() => {
      toast.dismiss();
    });
    flush(1000);
    vi.useRealTimers();
  });

  it("lays toasts out 356 px wide with a 14 px gap, and names the Alt+T hotkey", () => {
    renderToaster();
    act(() => {
      toast("Saved");
    });
    flush();
    expect(toastList().style.getPropertyValue("--width")).toBe("356px");
    expect(toastList().style.getPropertyValue("--gap")).toBe("14px");
    expect(screen.getByRole("region", { name: /alt\+T/ })).toBeInTheDocument();
  });

  it("Alt+T moves focus to the toasts and expands them", () => {
    renderToaster();
    act(() => {
      toast("Saved");
    });
    flush();
    expect(toastItems()[0]).toHaveAttribute("data-expanded", "false");
    fireEvent.keyDown(document, { altKey: true, code: "KeyT", key: "t" });
    expect(toastList()).toHaveFocus();
    expect(toastItems()[0]).toHaveAttribute("data-expanded", "true");
  });

  it("closes a toast after 4000 ms and removes it 200 ms later", () => {
    renderToaster();
    act(() => {
      toast("Saved");
    });
    flush();
    flush(TOAST_DURATION_MS - 1);
    expect(toastItems()[0]).toHaveAttribute("data-removed", "false");

    flush(1);
    expect(toastItems()[0]).toHaveAttribute("data-removed", "true");
    flush(TOAST_REMOVAL_DELAY_MS - 1);
    expect(screen.queryByText("Saved")).toBeInTheDocument();
    flush(1);
    expect(screen.queryByText("Saved")).not.toBeInTheDocument();
  });

  it("pauses the timer while hovered and resumes on leave", () => {
    renderToaster();
    act(() => {
      toast("Saved");
    });
    flush();
    flush(1000);
    fireEvent.mouseEnter(toastList());
    flush(10_000);
    expect(toastItems()[0]).toHaveAttribute("data-removed", "false");

    fireEvent.mouseLeave(toastList());
    flush(TOAST_DURATION_MS - 1000 - 1);
    expect(toastItems()[0]).toHaveAttribute("data-removed", "false");
    flush(1);
    expect(toastItems()[0]).toHaveAttribute("data-removed", "true");
  });

  it("shows at most 3 toasts at once", () => {
    renderToaster();
    act(() => {
      for (let n = 1; n <= 5; n += 1) toast(`Toast ${n}`);
    });
    flush();
    expect(toastItems()).toHaveLength(5);
    expect(toastItems().filter((item) => item.dataset.visible === "true")).toHaveLength(3);
  });

  it("uses the app's own icon for each of the five styles", () => {
    renderToaster();
    act(() => {
      toast.success("A success");
      toast.error("An error");
      toast.warning("A warning");
      toast.info("Some info");
      toast.loading("Loading");
    });
    flush();
    const iconOf = (text: string) => screen.getByText(text).closest("[data-sonner-toast]")!.querySelector("[data-icon]")!;
    expect(iconOf("A success").querySelector('[data-toast-icon="success"]')).not.toBeNull();
    expect(iconOf("An error").querySelector('[data-toast-icon="error"]')).not.toBeNull();
    expect(iconOf("A warning").querySelector('[data-toast-icon="warning"]')).not.toBeNull();
    expect(iconOf("Some info").querySelector('[data-toast-icon="info"]')).not.toBeNull();
    expect(iconOf("Loading").querySelector(".toast-icon-loading")).not.toBeNull();
  });

  describe("swipe to dismiss", () => {
    beforeEach(() => {
      // jsdom has no pointer capture; sonner calls it when a swipe starts.
      Element.prototype.setPointerCapture ??= () => {};
    });

    // A slow drag (1 s), so only the distance decides, not sonner's flick-velocity rule.
    function swipeRight(item: HTMLElement, distance: number) {
      fireEvent.pointerDown(item, { clientX: 100, clientY: 100, button: 0, pointerId: 1 });
      fireEvent.pointerMove(item, { clientX: 102, clientY: 100, pointerId: 1 });
      fireEvent.pointerMove(item, { clientX: 100 + distance, clientY: 100, pointerId: 1 });
      flush(1000);
      fireEvent.pointerUp(item, { clientX: 100 + distance, clientY: 100, pointerId: 1 });
    }

    it("keeps the toast when swiped less than 45 px", () => {
      renderToaster();
      act(() => {
        toast("Saved");
      });
      flush();
      swipeRight(toastItems()[0]!, TOAST_SWIPE_THRESHOLD_PX - 1);
      expect(toastItems()[0]).toHaveAttribute("data-removed", "false");
    });

    it("dismisses the toast when swiped 45 px", () => {
      renderToaster();
      act(() => {
        toast("Saved");
      });
      flush();
      swipeRight(toastItems()[0]!, TOAST_SWIPE_THRESHOLD_PX);
      expect(toastItems()[0]).toHaveAttribute("data-removed", "true");
    });
  });
});
