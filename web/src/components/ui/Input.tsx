// Form controls. Errors are tied to their input with aria-describedby + aria-invalid so a
// screen reader reads the message when the field gets focus, not only when it appears.
import type { InputHTMLAttributes, LabelHTMLAttributes, ReactNode, Ref } from "react";
import { cx } from "./class-names";

export interface InputProps extends InputHTMLAttributes<HTMLInputElement> {
  /** Marks the value as rejected; pair with a FieldError whose id is in aria-describedby. */
  invalid?: boolean;
  ref?: Ref<HTMLInputElement>;
}

export function Input({ invalid = false, className, ...rest }: InputProps) {
  return <input className={cx("input", invalid && "input-invalid", className)} aria-invalid={invalid || undefined} {...rest} />;
}

export function Label({ className, ...rest }: LabelHTMLAttributes<HTMLLabelElement>) {
  return <label className={cx("label", className)} {...rest} />;
}

export interface FieldErrorProps {
  id: string;
  children?: ReactNode;
}

/** Renders nothing without a message, so the id can always be referenced. */
export function FieldError({ id, children }: FieldErrorProps) {
  if (!children) return null;
  return (
    <p id={id} className="field-error" role="alert">
      {children}
    </p>
  );
}
