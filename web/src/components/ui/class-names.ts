// Joins class names, skipping the falsy ones conditional classes produce.
export function cx(...classes: Array<string | false | null | undefined>): string {
  return classes.filter(Boolean).join(" ");
}
