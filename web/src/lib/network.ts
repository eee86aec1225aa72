// Global network watcher (docs/requirements.md "Screens"): tells the visitor when the browser loses or regains its
// connection. It reacts to the browser's online/offline events only, so loading the page
// (online or not) shows nothing; the first toast appears on the first change.
import { useEffect } from "react";
import { toast } from "sonner";

export const NETWORK_CONNECTED_MESSAGE = "Network connected";
export const NETWORK_DISCONNECTED_MESSAGE = "Network disconnected";
export const NETWORK_DISCONNECTED_DESCRIPTION = "Check your internet connection";

// One id for both toasts: reconnecting replaces the "disconnected" toast instead of
// stacking under it, and a flapping connection cannot fill the screen. Sonner merges an
// update into the toast it replaces, hence the explicit empty description on reconnect.
const NETWORK_TOAST_ID = "network-status";

/** Starts watching; returns the function that stops. */
export function watchNetworkStatus(target: Window = window): () => void {
  const onOnline = () => toast.success(NETWORK_CONNECTED_MESSAGE, { id: NETWORK_TOAST_ID, description: undefined });
  const onOffline = () =>
    toast.error(NETWORK_DISCONNECTED_MESSAGE, { id: NETWORK_TOAST_ID, description: NETWORK_DISCONNECTED_DESCRIPTION });
  target.addEventListener("online", onOnline);
  target.addEventListener("offline", onOffline);
  return () => {
    target.removeEventListener("online", onOnline);
    target.removeEventListener("offline", onOffline);
  };
}

/** Mounted once, next to the toaster in App; renders nothing. */
export function NetworkStatusWatcher(): null {
  useEffect(() => watchNetworkStatus(), []);
  return null;
}
