import fc from "fast-check";

/** A JSON Schema as @fastify/swagger writes it from the routes' zod schemas (OpenAPI 3.1). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  default?: unknown;
}

export type Components = Record<string, JsonSchema>;

/** Strings that have broken servers before: NUL, lone surrogates, RTL marks, SQL, paths, templates, huge. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "\udfff",
    "\u202e\u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "💩".repeat(300),
    "e\u0301".repeat(100),
    "' OR '1'='1",
    "'; DROP TABLE files; --",
    "../../../../etc/passwd",
    "..\\..\\windows\\win.ini",
    "%00",
    "%2e%2e%2f",
    "${jndi:ldap://127.0.0.1/x}",
    "{{7*7}}",
    "<script>alert(1)</script>",
    "javascript:alert(1)",
    "null",
    "undefined",
    "NaN",
    "-1",
    "9".repeat(400),
    "__proto__",
    "constructor",
  ),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 100 }),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => "x".repeat(n)),
);

/** URLs a fetching route must refuse before any connection: private hosts, other schemes, junk. */
export const hostileUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "http://127.0.0.1/x.mp3",
    "http://localhost:1/x.png",
    "http://[::1]/x.png",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/x.mp3",
    "http://0.0.0.0/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://user:pass@127.0.0.1/x",
    "file:///etc/passwd",
    "gopher://127.0.0.1:25/",
    "data:image/png;base64,AAAA",
    "javascript:alert(1)",
    "ftp://127.0.0.1/x",
    "http://",
    "https://[::ffff:127.0.0.1]/",
    "",
  ),
  nastyString,
);

/** Any JSON value, including the keys that pollute prototypes in careless merges. */
export const junkJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom<unknown>(
    JSON.parse('{"__proto__": {"admin": true, "polluted": "yes"}}'),
    JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}'),
    { toString: "x", valueOf: 1, hasOwnProperty: null },
    [],
    [[[[[[[[[[[]]]]]]]]]]],
    null,
    0,
    -0,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    "string",
  ),
);

function resolve(schema: JsonSchema, components: Components): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace("#/components/schemas/", "");
  const found = components[name];
  if (!found) throw new Error(`unknown $ref ${schema.$ref}`);
  return resolve(found, components);
}

/**
 * Values for `schema`: mostly ones it accepts (so requests get past validation into the
 * services), mixed with values at and past its limits, wrong types and nasty strings.
 * `overrides` replaces the arbitrary of a property by name (hostile URLs for `url`).
 */
export function valueFor(schema: JsonSchema, components: Components, overrides: Record<string, fc.Arbitrary<unknown>> = {}, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, components);
  const valid = validFor(s, components, overrides, depth);
  return fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: edgeFor(s), weight: 2 }, { arbitrary: junkJson, weight: 1 });
}

function validFor(s: JsonSchema, components: Components, overrides: Record<string, fc.Arbitrary<unknown>>, depth: number): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return fc.oneof(...variants.map((v) => valueFor(v, components, overrides, depth + 1)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") ?? "null" : s.type;
  switch (type) {
    case "object": {
      const entries = Object.entries(s.properties ?? {}).map(([key, property]) => [key, overrides[key] ?? valueFor(property, components, overrides, depth + 1)] as const);
      return fc.record(Object.fromEntries(entries), { requiredKeys: (s.required ?? []).filter((k) => k in (s.properties ?? {})) });
    }
    case "array":
      return depth > 4 ? fc.constant([]) : fc.array(valueFor(s.items ?? {}, components, overrides, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) });
    case "string":
      if (s.format === "email") return fc.emailAddress();
      if (s.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40) });
    case "integer":
      return fc.integer({ min: Math.max(s.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER), max: Math.min(s.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER) });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values on and just past the schema's edges, and of the wrong type. */
function edgeFor(s: JsonSchema): fc.Arbitrary<unknown> {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "string":
      return fc.oneof(
        nastyString,
        fc.constant("x".repeat((s.maxLength ?? 1000) + 1)),
        fc.constant("x".repeat(s.maxLength ?? 0)),
        fc.integer(),
        fc.constant(null),
      );
    case "integer":
    case "number":
      return fc.constantFrom<unknown>(
        (s.minimum ?? 0) - 1,
        (s.maximum ?? 1e9) + 1,
        0.5,
        -0,
        1e308,
        Number.MAX_SAFE_INTEGER + 10,
        "12",
        "1e3",
        "abc",
        null,
        true,
      );
    case "boolean":
      return fc.constantFrom<unknown>("true", 1, 0, null, "yes");
    case "array":
      return fc.oneof(fc.constant("not an array"), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 200 }));
    case "object":
      return fc.oneof(fc.constant("not an object"), fc.constant([]), fc.dictionary(nastyString, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 5 }));
    default:
      return junkJson;
  }
}

/** A query parameter's value as text: mostly by its schema, sometimes junk. */
export function queryValueFor(schema: JsonSchema, components: Components): fc.Arbitrary<string> {
  return valueFor(schema, components).map((value) => (typeof value === "string" ? value : JSON.stringify(value) ?? ""));
}
