// Menu on Radix, which provides the menu roles, arrow-key navigation, typeahead, Escape
// and focus return. The wrapper only adds the portal, spacing and the kit's styling.
import * as RadixMenu from "@radix-ui/react-dropdown-menu";
import type { ComponentPropsWithoutRef } from "react";
import { cx } from "./class-names";

export const DropdownMenu = RadixMenu.Root;
export const DropdownMenuTrigger = RadixMenu.Trigger;
export const DropdownMenuGroup = RadixMenu.Group;
export const DropdownMenuRadioGroup = RadixMenu.RadioGroup;

export function DropdownMenuContent({
  className,
  sideOffset = 6,
  align = "end",
  ...rest
}: ComponentPropsWithoutRef<typeof RadixMenu.Content>) {
  return (
    // Portalled so an overflow:hidden ancestor (a card, a table) cannot clip the menu.
    <RadixMenu.Portal>
      <RadixMenu.Content className={cx("ui-menu", className)} sideOffset={sideOffset} align={align} {...rest} />
    </RadixMenu.Portal>
  );
}

export interface DropdownMenuItemProps extends ComponentPropsWithoutRef<typeof RadixMenu.Item> {
  /** Destructive actions (delete) are coloured as such. */
  danger?: boolean;
}

export function DropdownMenuItem({ className, danger = false, ...rest }: DropdownMenuItemProps) {
  return <RadixMenu.Item className={cx("ui-menu-item", danger && "ui-menu-item-danger", className)} {...rest} />;
}

export function DropdownMenuRadioItem({ className, children, ...rest }: ComponentPropsWithoutRef<typeof RadixMenu.RadioItem>) {
  return (
    <RadixMenu.RadioItem className={cx("ui-menu-item", "ui-menu-item-indented", className)} {...rest}>
      <RadixMenu.ItemIndicator className="ui-menu-item-indicator">
        <span aria-hidden="true">●</span>
      </RadixMenu.ItemIndicator>
      {children}
    </RadixMenu.RadioItem>
  );
}

export function DropdownMenuLabel({ className, ...rest }: ComponentPropsWithoutRef<typeof RadixMenu.Label>) {
  return <RadixMenu.Label className={cx("ui-menu-label", className)} {...rest} />;
}

export function DropdownMenuSeparator({ className, ...rest }: ComponentPropsWithoutRef<typeof RadixMenu.Separator>) {
  return <RadixMenu.Separator className={cx("ui-menu-separator", className)} {...rest} />;
}
