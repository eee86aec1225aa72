// The way up from the free plan, wherever it is offered: the checkout button where this
// server takes payments, the payments-off note where it does not, nothing otherwise
// (premium, or a tier an administrator set).
import { Button } from "../../components/ui";
import type { Subscription } from "../../lib/api/generated/zod.gen";
import { canUpgrade, PAYMENTS_OFF_NOTE } from "./plan";
import { useCheckout } from "./use-billing";

export function UpgradeOrNote({ subscription, testIdPrefix }: { subscription: Subscription | undefined; testIdPrefix: string }) {
  const checkout = useCheckout();
  if (!subscription) return null;
  if (canUpgrade(subscription)) {
    return (
      <div className="button-row">
        <Button variant="primary" loading={checkout.isPending} onClick={() => checkout.mutate()} data-testid={`${testIdPrefix}-upgrade`}>
          Upgrade to premium
        </Button>
      </div>
    );
  }
  if (!subscription.paymentsEnabled) {
    return (
      <p className="muted" data-testid={`${testIdPrefix}-payments-off`}>
        {PAYMENTS_OFF_NOTE}
      </p>
    );
  }
  return null;
}
