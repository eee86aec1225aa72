import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { toast } from "sonner";
import { identifyUser } from "../analytics";
import { authApi } from "../api";
import { ApiError } from "../api/errors";

/** Ends the session on the server. Already signed out (401) counts as done. */
export async function signOut(): Promise<void> {
  try {
    await authApi.request({ method: "POST", path: "/sign-out", body: {} });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    throw error;
  }
}

/**
 * Sign-out for the user menu: ends the session, leaves the protected area, then forgets
 * every cached answer so the next person at this browser sees nothing of the last one.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: signOut,
    onSuccess: async () => {
      // Navigate first: while the dashboard layout is mounted, an emptied session would make
      // it rerun the gate, which would save the page as a destination for the next sign-in.
      await navigate({ to: "/" });
      queryClient.clear();
      identifyUser(null);
    },
    // Still signed in on the server, so staying put is right; say why nothing happened.
    onError: (error) => toast.error("Could not sign out", { description: error.message }),
  });
}
