// Coming back from Stripe Checkout to /dashboard?subscription=success: thank the user,
// drop the parameter (a reload must not thank them twice) and refresh the plan. Stripe's
// webhook can land a moment after the browser, so the plan is re-read for a short while
// until it shows premium.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { billingQueryKeys } from "../../lib/api/billing";

export const SUBSCRIPTION_SUCCESS_MESSAGE = "Thank you for subscribing! Your premium plan is now active.";
export const PLAN_RECHECK_INTERVAL_MS = 2000;
export const PLAN_RECHECK_FOR_MS = 30_000;

/** Returns the refetch interval the plan card should use: on for a while after a successful checkout. */
export function useSubscriptionReturn(success: boolean, clearSearch: () => void): number | false {
  const queryClient = useQueryClient();
  const [recheckUntil, setRecheckUntil] = useState(0);
  // Once per arrival: the effect can run again before the address loses the parameter.
  const handled = useRef(false);

  useEffect(() => {
    if (!success) {
      handled.current = false;
      return;
    }
    if (handled.current) return;
    handled.current = true;
    toast.success(SUBSCRIPTION_SUCCESS_MESSAGE, { id: "subscription-success" });
    void queryClient.invalidateQueries({ queryKey: billingQueryKeys.all });
    setRecheckUntil(Date.now() + PLAN_RECHECK_FOR_MS);
    clearSearch();
  }, [success, clearSearch, queryClient]);

  useEffect(() => {
    if (!recheckUntil) return;
    const timer = setTimeout(() => setRecheckUntil(0), Math.max(0, recheckUntil - Date.now()));
    return () => clearTimeout(timer);
  }, [recheckUntil]);

  return recheckUntil ? PLAN_RECHECK_INTERVAL_MS : false;
}
