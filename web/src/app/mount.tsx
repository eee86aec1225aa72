// Mounting is separate from main.tsx so it can be tested without a browser entry point.
import { createRoot, type Root, type RootOptions } from "react-dom/client";
import type { ReactNode } from "react";
import { logRenderError } from "./render-errors";

/**
 * Renders the app into `container` only if it is empty (docs/requirements.md "Screens"). Something else already
 * owning the element (a second script tag, a browser extension, server-rendered markup)
 * must not be clobbered. The app is built lazily so nothing is constructed when refused.
 * `rootOptions` replaces the default error callbacks (main.tsx adds error reporting to them).
 */
export function mountApp(container: HTMLElement | null, renderApp: () => ReactNode, rootOptions: RootOptions = {}): Root | null {
  if (!container) throw new Error("Cannot start the app: the #root element is missing from index.html.");
  if (container.innerHTML.trim() !== "") return null;

  const root = createRoot(container, {
    onCaughtError: logRenderError,
    onUncaughtError: logRenderError,
    ...rootOptions,
  });
  root.render(renderApp());
  return root;
}
