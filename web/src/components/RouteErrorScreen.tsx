// Adapts the router's error props to ErrorScreen. Resetting alone would re-render with the
// same failed loader data, so the router is invalidated too, which reruns loaders.
import { useRouter, type ErrorComponentProps } from "@tanstack/react-router";
import { ErrorScreen } from "./ErrorScreen";

export function RouteErrorScreen({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  return (
    <ErrorScreen
      error={error}
      reset={() => {
        reset();
        void router.invalidate();
      }}
    />
  );
}
