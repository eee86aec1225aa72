// Last line of defence around the whole app, including the router and providers.
// Logging happens in the root's onCaughtError (see app/mount.tsx), not here, so every
// boundary in the tree reports errors the same way.
import { Component, type ReactNode } from "react";
import { ErrorScreen } from "./ErrorScreen";

interface AppErrorBoundaryProps {
  children: ReactNode;
}

interface AppErrorBoundaryState {
  error: unknown;
  hasError: boolean;
}

export class AppErrorBoundary extends Component<AppErrorBoundaryProps, AppErrorBoundaryState> {
  override state: AppErrorBoundaryState = { error: undefined, hasError: false };

  static getDerivedStateFromError(error: unknown): AppErrorBoundaryState {
    return { error, hasError: true };
  }

  private readonly reset = () => this.setState({ error: undefined, hasError: false });

  override render() {
    if (this.state.hasError) return <ErrorScreen error={this.state.error} reset={this.reset} />;
    return this.props.children;
  }
}
