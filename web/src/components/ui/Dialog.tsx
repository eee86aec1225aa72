// Modal dialog on Radix, which traps focus, closes on Escape and returns focus to the
// trigger. The wrapper makes a title mandatory (screen readers announce it on open) and
// always renders a labelled close button, so no dialog can be a keyboard trap.
import * as RadixDialog from "@radix-ui/react-dialog";
import type { ComponentPropsWithoutRef, ReactNode } from "react";
import { cx } from "./class-names";

export const Dialog = RadixDialog.Root;
export const DialogTrigger = RadixDialog.Trigger;
export const DialogClose = RadixDialog.Close;

export interface DialogContentProps extends Omit<ComponentPropsWithoutRef<typeof RadixDialog.Content>, "title"> {
  title: ReactNode;
  description?: ReactNode;
  /** Accessible name of the × button. */
  closeLabel?: string;
}

export function DialogContent({ title, description, closeLabel = "Close", className, children, ...rest }: DialogContentProps) {
  return (
    <RadixDialog.Portal>
      <RadixDialog.Overlay className="dialog-overlay" />
      <RadixDialog.Content
        className={cx("dialog-content", className)}
        // Without a description Radix would point aria-describedby at nothing and warn.
        {...(description ? {} : { "aria-describedby": undefined })}
        {...rest}
      >
        <RadixDialog.Title className="dialog-title">{title}</RadixDialog.Title>
        {description ? <RadixDialog.Description className="dialog-description">{description}</RadixDialog.Description> : null}
        {children}
        <RadixDialog.Close className="dialog-close" aria-label={closeLabel}>
          <span aria-hidden="true">×</span>
        </RadixDialog.Close>
      </RadixDialog.Content>
    </RadixDialog.Portal>
  );
}

/** Right-aligned row for the dialog's actions; stacks on phones. */
export function DialogFooter({ className, ...rest }: ComponentPropsWithoutRef<"div">) {
  return <div className={cx("dialog-footer", className)} {...rest} />;
}
