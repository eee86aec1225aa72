// Account Settings' plan section (decision 0013): the tier and subscription state, the billing
// portal, restoring a subscription scheduled to cancel, and checkout for free users.
import { type ReactNode, useId } from "react";
import { Badge, Button, Card, CardDescription, CardHeader, CardTitle, Spinner } from "../../components/ui";
import { formatDateTime } from "../../lib/format";
import { canUpgrade, isCancelling, PAYMENTS_OFF_NOTE, subscriptionStatusLabel } from "./plan";
import { useBillingPortal, useCheckout, useRestoreSubscription, useSubscription } from "./use-billing";

function Shell({ children, description }: { children: ReactNode; description?: ReactNode }) {
  const id = useId();
  return (
    <Card className="stack account-section" aria-labelledby={id} role="region" data-testid="account-plan">
      <CardHeader>
        <CardTitle id={id}>Plan</CardTitle>
        {description ? <CardDescription>{description}</CardDescription> : null}
      </CardHeader>
      {children}
    </Card>
  );
}

export function PlanSection() {
  const subscription = useSubscription();
  const checkout = useCheckout();
  const portal = useBillingPortal();
  const restore = useRestoreSubscription();

  if (subscription.isPending) {
    return (
      <Shell>
        <Spinner label="Loading your plan…" />
      </Shell>
    );
  }
  if (subscription.isError) {
    return (
      <Shell>
        <p role="alert">{subscription.error.message}</p>
      </Shell>
    );
  }

  const plan = subscription.data;
  const premium = plan.tier === "premium";
  const cancelling = isCancelling(plan);
  return (
    <Shell description={premium ? "Unlimited transcription." : "A total free allowance of audio minutes; premium has no limit."}>
      <p>
        <Badge variant={premium ? "success" : "neutral"} data-testid="account-plan-tier">
          {premium ? "Premium" : "Free"}
        </Badge>{" "}
        {plan.status !== "none" ? <span data-testid="account-plan-status">Subscription: {subscriptionStatusLabel(plan)}</span> : null}
        {plan.tierSetByAdmin ? <span className="muted"> Set by your administrator.</span> : null}
      </p>

      {cancelling ? (
        <p className="notice notice-warning" role="status" data-testid="account-plan-cancelling">
          Your subscription is set to end
          {plan.currentPeriodEnd ? ` on ${formatDateTime(plan.currentPeriodEnd)}` : " at the end of this billing period"}. Restore it to keep
          premium.
        </p>
      ) : null}

      {!plan.paymentsEnabled ? (
        <p className="muted" data-testid="account-plan-payments-off">
          {PAYMENTS_OFF_NOTE}
        </p>
      ) : (
        <div className="button-row">
          {canUpgrade(plan) ? (
            <Button variant="primary" loading={checkout.isPending} onClick={() => checkout.mutate()} data-testid="account-plan-upgrade">
              Upgrade to premium
            </Button>
          ) : null}
          {cancelling ? (
            <Button variant="primary" loading={restore.isPending} onClick={() => restore.mutate()} data-testid="account-plan-restore">
              Restore subscription
            </Button>
          ) : null}
          {plan.hasBillingAccount ? (
            <Button loading={portal.isPending} onClick={() => portal.mutate()} data-testid="account-plan-portal">
              Manage billing
            </Button>
          ) : null}
        </div>
      )}
    </Shell>
  );
}
