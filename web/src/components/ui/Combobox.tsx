// Searchable select for long lists (the ~100 speech languages): a Radix Popover holding
// cmdk's Command, the shadcn/ui combobox. The trigger is a button with role=combobox, so a
// <Label htmlFor> names it; the popover's search box filters by name and code, arrows move,
// Enter picks, Escape closes and focus returns to the trigger. Typing on the closed trigger
// opens it with those letters already in the search.
import * as Popover from "@radix-ui/react-popover";
import { Command } from "cmdk";
import { useState, type KeyboardEvent } from "react";
import { cx } from "./class-names";

export interface ComboboxOption {
  value: string;
  label: string;
  /** Other words the search matches, e.g. a language's code. */
  keywords?: string[];
  disabled?: boolean;
}

export interface ComboboxProps {
  id?: string;
  value: string;
  onValueChange: (value: string) => void;
  options: ComboboxOption[];
  /** Shown on the trigger while nothing is chosen. */
  placeholder?: string;
  searchPlaceholder?: string;
  /** Accessible name of the list of options. */
  listLabel?: string;
  emptyText?: string;
  invalid?: boolean;
  disabled?: boolean;
  className?: string;
  "aria-describedby"?: string | undefined;
}

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{Diacritic}/gu, "")
    .toLowerCase()
    .trim();

/**
 * Rank for cmdk: an exact value (a code) first, then names that start with the query, then
 * words that do, then any substring; accents and case ignored. Substring rather than cmdk's
 * fuzzy default, which would let the code "ln" (Lingala) also find "SLoveNian".
 */
export function rankOption(value: string, search: string, keywords: string[] = []): number {
  const query = fold(search);
  if (!query) return 1;
  if (fold(value) === query) return 1;
  let best = 0;
  for (const keyword of keywords) {
    const text = fold(keyword);
    if (text === query) best = Math.max(best, 0.95);
    else if (text.startsWith(query)) best = Math.max(best, 0.9);
    else if (text.split(/[\s()-]+/).some((word) => word.startsWith(query))) best = Math.max(best, 0.7);
    else if (text.includes(query)) best = Math.max(best, 0.4);
  }
  return best;
}

export function Combobox({
  id,
  value,
  onValueChange,
  options,
  placeholder = "Select…",
  searchPlaceholder = "Search…",
  listLabel = "Options",
  emptyText = "No match.",
  invalid = false,
  disabled = false,
  className,
  "aria-describedby": describedBy,
}: ComboboxProps) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const selected = options.find((option) => option.value === value);

  const openWith = (initial: string) => {
    setSearch(initial);
    setOpen(true);
  };

  const onTriggerKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (open || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      openWith("");
    } else if (event.key.length === 1 && event.key !== " ") {
      event.preventDefault();
      openWith(event.key);
    }
  };

  return (
    <Popover.Root
      open={open}
      onOpenChange={(next) => {
        if (next) setSearch("");
        setOpen(next);
      }}
    >
      <Popover.Trigger asChild>
        <button
          type="button"
          id={id}
          role="combobox"
          aria-expanded={open}
          aria-haspopup="listbox"
          aria-invalid={invalid || undefined}
          aria-describedby={describedBy}
          disabled={disabled}
          className={cx("input", "select-trigger", invalid && "input-invalid", className)}
          onKeyDown={onTriggerKeyDown}
        >
          <span className={cx("select-trigger-value", !selected && "select-placeholder")}>{selected?.label ?? placeholder}</span>
          <ChevronIcon />
        </button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content className="ui-popover combobox-content" align="start" sideOffset={4} collisionPadding={8}>
          {/* cmdk names its search box by the Command's label (aria-labelledby), not by aria-label. */}
          <Command filter={rankOption} defaultValue={value} loop label={searchPlaceholder}>
            <Command.Input className="combobox-search" placeholder={searchPlaceholder} value={search} onValueChange={setSearch} />
            <Command.List className="combobox-list" label={listLabel}>
              <Command.Empty className="combobox-empty">{emptyText}</Command.Empty>
              {options.map((option) => (
                <Command.Item
                  key={option.value}
                  value={option.value}
                  keywords={[option.label, ...(option.keywords ?? [])]}
                  disabled={option.disabled}
                  className="ui-menu-item ui-menu-item-indented combobox-item"
                  onSelect={() => {
                    onValueChange(option.value);
                    setOpen(false);
                  }}
                >
                  {option.value === value ? (
                    <span className="ui-menu-item-indicator" aria-hidden="true">
                      <CheckIcon />
                    </span>
                  ) : null}
                  {option.label}
                </Command.Item>
              ))}
            </Command.List>
          </Command>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

export function ChevronIcon() {
  return (
    <svg className="select-icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function CheckIcon() {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
