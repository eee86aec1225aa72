// Placeholder blocks in the shape of the content that is loading, so the page does not jump
// when it arrives. Decoration only: the region around them says "loading" (LoadingRegion).
import type { CSSProperties, ReactNode } from "react";
import { cx } from "./class-names";

export interface SkeletonProps {
  width?: CSSProperties["width"];
  height?: CSSProperties["height"];
  className?: string;
}

export function Skeleton({ width = "100%", height = "1rem", className }: SkeletonProps) {
  return <span className={cx("skeleton", className)} style={{ width, height }} aria-hidden="true" />;
}

/** A busy region: screen readers hear `label`, sighted people see the skeleton inside. */
export function LoadingRegion({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div role="status" aria-busy="true" className={cx("loading-region", className)}>
      <span className="visually-hidden">{label}</span>
      {children}
    </div>
  );
}
