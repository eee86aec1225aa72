// Select for short lists (models, playback speed) on Radix Select: role=combobox trigger
// (named by a <Label htmlFor>), listbox with arrow keys, typeahead, Enter, Escape and focus
// return. Long lists that people search belong in Combobox.
import * as RadixSelect from "@radix-ui/react-select";
import type { ComponentPropsWithoutRef, ReactNode } from "react";
import { cx } from "./class-names";
import { CheckIcon, ChevronIcon } from "./Combobox";

export const Select = RadixSelect.Root;

export interface SelectTriggerProps extends ComponentPropsWithoutRef<typeof RadixSelect.Trigger> {
  placeholder?: ReactNode;
  invalid?: boolean;
}

export function SelectTrigger({ placeholder, invalid = false, className, ...rest }: SelectTriggerProps) {
  return (
    <RadixSelect.Trigger className={cx("input", "select-trigger", invalid && "input-invalid", className)} aria-invalid={invalid || undefined} {...rest}>
      <span className="select-trigger-value">
        <RadixSelect.Value placeholder={<span className="select-placeholder">{placeholder}</span>} />
      </span>
      <RadixSelect.Icon asChild>
        <ChevronIcon />
      </RadixSelect.Icon>
    </RadixSelect.Trigger>
  );
}

export function SelectContent({ className, children, ...rest }: ComponentPropsWithoutRef<typeof RadixSelect.Content>) {
  return (
    <RadixSelect.Portal>
      {/* "popper" places the list under the trigger like the combobox, not over it (macOS style). */}
      <RadixSelect.Content className={cx("ui-popover", "select-content", className)} position="popper" sideOffset={4} collisionPadding={8} {...rest}>
        <RadixSelect.Viewport className="select-viewport">{children}</RadixSelect.Viewport>
      </RadixSelect.Content>
    </RadixSelect.Portal>
  );
}

export interface SelectItemProps extends ComponentPropsWithoutRef<typeof RadixSelect.Item> {
  /** A second, muted line (e.g. why a model is unavailable); not shown on the trigger. */
  description?: ReactNode;
}

export function SelectItem({ className, children, description, ...rest }: SelectItemProps) {
  return (
    <RadixSelect.Item className={cx("ui-menu-item", "ui-menu-item-indented", "select-item", className)} {...rest}>
      <RadixSelect.ItemIndicator className="ui-menu-item-indicator">
        <CheckIcon />
      </RadixSelect.ItemIndicator>
      <span className="select-item-text">
        <RadixSelect.ItemText>{children}</RadixSelect.ItemText>
        {description ? <span className="select-item-description">{description}</span> : null}
      </span>
    </RadixSelect.Item>
  );
}
