// The one button of the app. Links that look like buttons use buttonClassName() so both
// share size, colours and focus ring.
import type { ButtonHTMLAttributes, Ref } from "react";
import { cx } from "./class-names";
import { Spinner } from "./Spinner";

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger";
export type ButtonSize = "sm" | "md" | "lg";

export interface ButtonStyleOptions {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Full width of the container. */
  block?: boolean;
  className?: string | undefined;
}

export function buttonClassName({ variant = "secondary", size = "md", block = false, className }: ButtonStyleOptions = {}): string {
  return cx("button", `button-${variant}`, size !== "md" && `button-${size}`, block && "button-block", className);
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement>, Omit<ButtonStyleOptions, "className"> {
  /** Shows a spinner and blocks clicks while an action is running; the label stays for layout and screen readers. */
  loading?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

export function Button({
  variant,
  size,
  block,
  loading = false,
  disabled,
  className,
  type = "button",
  children,
  ...rest
}: ButtonProps) {
  return (
    <button
      // Default "button": a bare <button> inside a form submits it, a classic source of surprise submits.
      type={type}
      className={buttonClassName({ variant, size, block, className: cx(loading && "button-loading", className) })}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading ? <Spinner size="sm" /> : null}
      {children}
    </button>
  );
}
