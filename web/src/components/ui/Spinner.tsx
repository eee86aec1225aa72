// Indeterminate progress indicator. With a label it announces itself as a status; without
// one it is decoration inside something that already says it is busy (e.g. a Button).
import { cx } from "./class-names";

export interface SpinnerProps {
  /** Read to screen readers; omit when the surrounding element already conveys "busy". */
  label?: string;
  size?: "sm" | "md" | "lg";
  className?: string;
}

export function Spinner({ label, size = "md", className }: SpinnerProps) {
  const spinner = <span className={cx("spinner", `spinner-${size}`, className)} aria-hidden="true" />;
  if (!label) return spinner;
  return (
    <span role="status" className="spinner-status">
      {spinner}
      <span className="visually-hidden">{label}</span>
    </span>
  );
}
