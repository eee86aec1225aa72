// Shown where a transcription was refused for the free plan's limit: the server's message
// (used, left, how to upgrade) and, where payments are on, the upgrade button itself.
import { Button } from "../../components/ui";
import { canUpgrade, PAYMENTS_OFF_NOTE } from "./plan";
import { useCheckout, useSubscription } from "./use-billing";

export function TrialLimitRefusal({ message }: { message: string }) {
  const subscription = useSubscription();
  const checkout = useCheckout();
  return (
    <div className="notice notice-warning trial-refusal" role="alert" data-testid="trial-limit-refusal">
      <p>{message}</p>
      {subscription.data && canUpgrade(subscription.data) ? (
        <div className="button-row">
          <Button variant="primary" loading={checkout.isPending} onClick={() => checkout.mutate()} data-testid="trial-limit-upgrade">
            Upgrade to premium
          </Button>
        </div>
      ) : subscription.data && !subscription.data.paymentsEnabled ? (
        <p className="muted">{PAYMENTS_OFF_NOTE}</p>
      ) : null}
    </div>
  );
}
