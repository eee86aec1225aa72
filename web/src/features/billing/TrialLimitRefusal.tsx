// Shown where a transcription was refused for the free plan's limit: the server's message
// (used, left, how to upgrade) and, where payments are on, the upgrade button itself.
import { UpgradeOrNote } from "./UpgradeOrNote";
import { useSubscription } from "./use-billing";

export function TrialLimitRefusal({ message }: { message: string }) {
  const subscription = useSubscription();
  return (
    <div className="notice notice-warning trial-refusal" role="alert" data-testid="trial-limit-refusal">
      <p>{message}</p>
      <UpgradeOrNote subscription={subscription.data} testIdPrefix="trial-limit" />
    </div>
  );
}
