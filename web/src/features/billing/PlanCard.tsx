// The dashboard's plan card (decision 0013): the tier, the free trial used and left, this month's
// and all-time usage, and the way up: checkout where payments are on, a note where not.
import { Badge, Card, CardDescription, CardHeader, CardTitle, Spinner } from "../../components/ui";
import { minutes, trialSummary } from "./plan";
import { UpgradeOrNote } from "./UpgradeOrNote";
import { useSubscription, useTrialLimits, useUsageStats } from "./use-billing";

export function PlanCard({ recheckEvery = false }: { recheckEvery?: number | false }) {
  const limits = useTrialLimits(recheckEvery);
  const usage = useUsageStats();
  const subscription = useSubscription();

  if (limits.isPending) {
    return (
      <Card className="plan-card" data-testid="plan-card">
        <Spinner label="Loading your plan…" />
      </Card>
    );
  }
  if (limits.isError) {
    return (
      <Card className="plan-card" data-testid="plan-card">
        <p role="alert" className="field-error">
          Could not load your plan: {limits.error.message}
        </p>
      </Card>
    );
  }

  const trial = trialSummary(limits.data);
  return (
    <Card className="plan-card stack" data-testid="plan-card" data-tier={limits.data.tier}>
      <CardHeader className="plan-card-header">
        <CardTitle>
          Your plan{" "}
          <Badge variant={trial.premium ? "success" : "neutral"} data-testid="plan-tier">
            {trial.premium ? "Premium" : "Free"}
          </Badge>
        </CardTitle>
        <CardDescription>
          {trial.premium ? "Transcribe as much as you like." : `The free plan includes ${minutes(trial.limit)} of audio in total.`}
        </CardDescription>
      </CardHeader>

      {trial.premium ? null : (
        <div className="plan-trial">
          <div
            className="progress"
            role="progressbar"
            aria-label="Free minutes used"
            aria-valuemin={0}
            aria-valuemax={trial.limit}
            aria-valuenow={Math.min(trial.used, trial.limit)}
          >
            <div className={trial.atLimit ? "progress-bar progress-bar-full" : "progress-bar"} style={{ width: `${trial.percent}%` }} />
          </div>
          <p data-testid="plan-trial-left">
            {minutes(trial.used)} of {minutes(trial.limit)} used · <strong>{minutes(trial.remaining)} left</strong>
          </p>
          {trial.atLimit ? (
            <p role="status" className="notice notice-warning" data-testid="plan-at-limit">
              You have used all your free minutes. Upgrade to premium to keep transcribing.
            </p>
          ) : null}
        </div>
      )}

      {usage.data ? (
        <dl className="plan-usage" data-testid="plan-usage">
          <div>
            <dt>This month</dt>
            <dd>
              {usage.data.thisMonth.fileCount} {usage.data.thisMonth.fileCount === 1 ? "file" : "files"}, {minutes(usage.data.thisMonth.totalMinutes)}
            </dd>
          </div>
          <div>
            <dt>All time</dt>
            <dd>
              {usage.data.allTime.fileCount} {usage.data.allTime.fileCount === 1 ? "file" : "files"}, {minutes(usage.data.allTime.totalMinutes)}
            </dd>
          </div>
        </dl>
      ) : null}

      {trial.premium ? null : <UpgradeOrNote subscription={subscription.data} testIdPrefix="plan" />}
    </Card>
  );
}
