// The global network watcher (docs/requirements.md "Screens") with the real toaster: browser online/offline events
// in, visible toast texts out.
import { act, render, screen, waitFor } from "@testing-library/react";
import { toast } from "sonner";
import { afterEach, describe, expect, it } from "vitest";
import { AppToaster } from "../src/components/AppToaster";
import { NetworkStatusWatcher, watchNetworkStatus } from "../src/lib/network";
import { ThemeProvider } from "../src/theme/ThemeProvider";
import { renderApp } from "./render-app";

function renderWatcher() {
  return render(
    <ThemeProvider defaultTheme="light">
      <AppToaster />
      <NetworkStatusWatcher />
    </ThemeProvider>,
  );
}

function goOffline() {
  act(() => {
    window.dispatchEvent(new Event("offline"));
  });
}

function goOnline() {
  act(() => {
    window.dispatchEvent(new Event("online"));
  });
}

/** Lets sonner's deferred add run, so "nothing shown" is not just "not shown yet". */
async function settle() {
  await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
}

describe("network status toasts", () => {
  afterEach(async () => {
    act(() => {
      toast.dismiss();
    });
    await settle();
  });

  it("shows nothing on first load", async () => {
    renderWatcher();
    await settle();
    expect(document.querySelectorAll("[data-sonner-toast]")).toHaveLength(0);
    expect(screen.queryByText("Network connected")).not.toBeInTheDocument();
    expect(screen.queryByText("Network disconnected")).not.toBeInTheDocument();
  });

  it("offline: an error toast 'Network disconnected' with 'Check your internet connection'", async () => {
    renderWatcher();
    goOffline();
    const title = await screen.findByText("Network disconnected");
    expect(screen.getByText("Check your internet connection")).toBeInTheDocument();
    expect(title.closest("[data-sonner-toast]")).toHaveAttribute("data-type", "error");
  });

  it("back online: a success toast 'Network connected' replaces the offline one", async () => {
    renderWatcher();
    goOffline();
    await screen.findByText("Network disconnected");
    goOnline();
    const title = await screen.findByText("Network connected");
    expect(title.closest("[data-sonner-toast]")).toHaveAttribute("data-type", "success");
    await waitFor(() => expect(screen.queryByText("Network disconnected")).not.toBeInTheDocument());
    // The offline description must not carry over into the reconnect toast.
    expect(screen.queryByText("Check your internet connection")).not.toBeInTheDocument();
  });

  it("the app itself watches the network", async () => {
    renderApp(["/"]);
    goOffline();
    expect(await screen.findByText("Network disconnected")).toBeInTheDocument();
    goOnline();
    expect(await screen.findByText("Network connected")).toBeInTheDocument();
  });

  it("stops listening when stopped", async () => {
    renderWatcher();
    const target = new EventTarget() as Window;
    const stop = watchNetworkStatus(target);
    stop();
    act(() => {
      target.dispatchEvent(new Event("offline"));
    });
    await settle();
    expect(screen.queryByText("Network disconnected")).not.toBeInTheDocument();
  });
});
