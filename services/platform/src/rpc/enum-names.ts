import type { DescEnum } from "@bufbuild/protobuf";

/**
 * A proto enum's values by the names the API and the database use: the generated value's
 * name without the enum's prefix, lower-cased (TRANSCRIPTION_STATUS_PENDING → "pending").
 * Read from the generated descriptor, so a value added to the .proto has its name at once;
 * the zero value (UNSPECIFIED) has none.
 */
export function enumNames<E extends number>(schema: DescEnum) {
  const namesByValue = new Map<number, string>();
  const valuesByName = new Map<string, E>();
  for (const value of schema.values) {
    if (value.number === 0) continue;
    const name = value.localName.toLowerCase();
    namesByValue.set(value.number, name);
    valuesByName.set(name, value.number as E);
  }
  return {
    /** Every name, in the .proto's order. */
    names: [...valuesByName.keys()],
    /** The name of a value, or undefined for UNSPECIFIED and unknown numbers. */
    name(value: E): string | undefined {
      return namesByValue.get(value);
    },
    /** The value a name stands for, or undefined. */
    value(name: string): E | undefined {
      return valuesByName.get(name);
    },
  };
}
