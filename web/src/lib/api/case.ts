// The wire is snake_case (the BFF's zod schemas), the app is camelCase.

export interface CaseOptions {
  /**
   * Property names (as they are before conversion) whose values are maps keyed by data,
   * e.g. language codes or user-chosen labels: their keys are left alone.
   */
  opaqueKeys?: ReadonlySet<string>;
}

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function camelToSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z])([A-Z][a-z])/g, "$1_$2").toLowerCase();
}

function convertKeys(value: unknown, convert: (key: string) => string, options: CaseOptions): unknown {
  if (Array.isArray(value)) return value.map((item) => convertKeys(item, convert, options));
  if (!isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    result[convert(key)] = options.opaqueKeys?.has(key) ? child : convertKeys(child, convert, options);
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export const keysToSnake = (value: unknown, options: CaseOptions = {}) => convertKeys(value, camelToSnake, options);
export const keysToCamel = (value: unknown, options: CaseOptions = {}) => convertKeys(value, snakeToCamel, options);
