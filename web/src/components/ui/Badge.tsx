// Short status label, e.g. a transcription's state. Colour is never the only signal: the
// text itself says the status.
import type { HTMLAttributes } from "react";
import { cx } from "./class-names";

export type BadgeVariant = "neutral" | "info" | "success" | "warning" | "danger";

export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {
  variant?: BadgeVariant;
}

export function Badge({ variant = "neutral", className, ...rest }: BadgeProps) {
  return <span className={cx("badge", `badge-${variant}`, className)} {...rest} />;
}
