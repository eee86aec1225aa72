import { type ReactNode, useId } from "react";
import { Card, CardDescription, CardHeader, CardTitle } from "../../components/ui";

/** One card of Account Settings, labelled by its title for screen readers and tests. */
export function Section({ title, description, testId, children }: { title: string; description?: ReactNode; testId: string; children: ReactNode }) {
  const id = useId();
  return (
    <Card className="stack account-section" aria-labelledby={id} role="region" data-testid={testId}>
      <CardHeader>
        <CardTitle id={id}>{title}</CardTitle>
        {description ? <CardDescription>{description}</CardDescription> : null}
      </CardHeader>
      {children}
    </Card>
  );
}
