// The plan screens' queries and actions. Checkout and the portal leave the app for Stripe;
// restore stays and refreshes everything billing shows.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import {
  billingQueryKeys,
  getSubscription,
  getTrialLimits,
  getUsageStats,
  openBillingPortal,
  restoreSubscription,
  startCheckout,
} from "../../lib/api/billing";
import { leaveFor } from "../../lib/leave-for";

/** `recheckEvery`: re-read until the tier shows premium (after a checkout, the webhook may still be on its way). */
export function useTrialLimits(recheckEvery: number | false = false) {
  return useQuery({
    queryKey: billingQueryKeys.trialLimits,
    queryFn: ({ signal }) => getTrialLimits(signal),
    refetchInterval: (query) => (recheckEvery && query.state.data?.tier !== "premium" ? recheckEvery : false),
  });
}

export function useUsageStats() {
  return useQuery({ queryKey: billingQueryKeys.usageStats, queryFn: ({ signal }) => getUsageStats(signal) });
}

export function useSubscription() {
  return useQuery({ queryKey: billingQueryKeys.subscription, queryFn: ({ signal }) => getSubscription(signal) });
}

/** Leaves for a Stripe page; stays pending until the browser navigates away. */
function useRedirectMutation(call: () => Promise<string>) {
  return useMutation({
    mutationFn: async () => {
      const url = await call();
      leaveFor(url);
      return new Promise<never>(() => {});
    },
    onError: (error) => toast.error(error.message),
  });
}

export const useCheckout = () => useRedirectMutation(() => startCheckout().then((r) => r.checkoutUrl));
export const useBillingPortal = () => useRedirectMutation(() => openBillingPortal().then((r) => r.portalUrl));

export function useRestoreSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: restoreSubscription,
    onSuccess: async (result) => {
      toast.success(result.tier === "premium" ? "Your subscription will continue" : "Subscription restored");
      await queryClient.invalidateQueries({ queryKey: billingQueryKeys.all });
    },
    onError: (error) => toast.error(error.message),
  });
}
