import type { FastifyInstance } from "fastify";
import { safeParse } from "zod";
import type { $ZodType } from "zod/v4/core";
import { sendApiError } from "./api-error.js";

/**
 * The one rule for request bodies of /api/v1 (docs/api.md "Request bodies", decision 0034):
 *
 * - a field the route's schema does not name, at any depth, is refused with 400 naming its
 *   path (`settings.vocabularyy: unknown field`), so a client never believes an option was
 *   applied when it was dropped;
 * - `null` for an optional field is the same as leaving it out (a client that serialises
 *   absent values as null, as the editor's did, is not refused for it).
 *
 * It is applied once, here, to every /api/v1 route: requestBodyRule() checks the parsed body
 * against the route's own zod schema before validation, and strictRequestBodies() states the
 * same rule in the OpenAPI document (additionalProperties false, null allowed for optional
 * properties). The OpenAI-compatible /v1 routes are not under it: they ignore unknown fields,
 * as OpenAI's API does.
 */

export const UNKNOWN_FIELD = "unknown field";

/** The routes the rule covers. */
export function underBodyRule(url: string | undefined): boolean {
  return url?.startsWith("/api/v1/") ?? false;
}

type Path = Array<string | number>;
interface Def {
  type: string;
  innerType?: $ZodType;
  in?: $ZodType;
  getter?: () => $ZodType;
  element?: $ZodType;
  items?: $ZodType[];
  rest?: $ZodType | null;
  valueType?: $ZodType;
  shape?: Record<string, $ZodType>;
  catchall?: $ZodType;
  options?: $ZodType[];
  left?: $ZodType;
  right?: $ZodType;
}

const defOf = (schema: $ZodType) => schema._zod.def as unknown as Def;
const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value) && !Buffer.isBuffer(value);
const pathText = (path: Path) => path.join(".");

/** Wrappers whose input is their inner schema's. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch"]);

/**
 * Applies the rule to a parsed JSON body, in place: drops each optional field sent as null
 * (where its schema does not itself accept null) and returns the paths of the fields the
 * schema does not know. The body is then validated by the route's schema as usual.
 */
export function applyBodyRule(schema: $ZodType, body: unknown): string[] {
  const unknown: Path[] = [];
  walk(schema, body, [], unknown);
  return unknown.map(pathText);
}

function walk(schema: $ZodType, value: unknown, path: Path, unknown: Path[]): void {
  const inner = innerOf(schema);
  if (inner) {
    walk(inner, value, path, unknown);
    return;
  }
  const def = defOf(schema);
  if (def.type === "object") walkObject(def, value, path, unknown);
  else if (def.type === "union") walkUnion(def.options ?? [], value, path, unknown);
  else if (def.type === "array" && Array.isArray(value) && def.element) value.forEach((item, index) => walk(def.element!, item, [...path, index], unknown));
  else if (def.type === "tuple" && Array.isArray(value)) {
    value.forEach((item, index) => {
      const element = def.items?.[index] ?? def.rest ?? undefined;
      if (element) walk(element, item, [...path, index], unknown);
    });
  } else if (def.type === "record" && isRecord(value) && def.valueType) {
    for (const [key, item] of Object.entries(value)) walk(def.valueType, item, [...path, key], unknown);
  } else if (def.type === "intersection") {
    // A field is unknown only when neither side names it.
    const left: Path[] = [];
    const right: Path[] = [];
    if (def.left) walk(def.left, value, path, left);
    if (def.right) walk(def.right, value, path, right);
    const named = new Set(right.map(pathText));
    unknown.push(...left.filter((field) => named.has(pathText(field))));
  }
}

/** The schema a wrapper's input is checked against (optional, default, pipe's input side, lazy). */
function innerOf(schema: $ZodType): $ZodType | undefined {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return def.innerType;
  if (def.type === "pipe") return def.in;
  if (def.type === "lazy") return def.getter?.();
  return undefined;
}

function walkObject(def: Def, value: unknown, path: Path, unknown: Path[]): void {
  if (!isRecord(value)) return;
  const shape = def.shape ?? {};
  // .loose() and .catchall(x) objects take other keys on purpose; .strict() ones are refused by zod itself.
  const catchall = def.catchall && defOf(def.catchall).type !== "never" ? def.catchall : undefined;
  for (const key of Object.keys(value)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      if (catchall) walk(catchall, value[key], [...path, key], unknown);
      else unknown.push([...path, key]);
      continue;
    }
    // Optional: leaving it out is valid (.optional(), .default()).
    if (value[key] === null && !safeParse(field, null).success && safeParse(field, undefined).success) {
      delete value[key];
      continue;
    }
    walk(field, value[key], [...path, key], unknown);
  }
}

/**
 * A union: the option that knows every field and accepts the value; else the one that would
 * accept it without its unknown fields, with the fewest of them (so `{kind: "file", url}`
 * names `url`, not the file option's `file_id`).
 */
function walkUnion(options: $ZodType[], value: unknown, path: Path, unknown: Path[]): void {
  let best: { option: $ZodType; unknown: number; fits: boolean } | undefined;
  for (const option of options) {
    const trial = structuredClone(value);
    const found: Path[] = [];
    walk(option, trial, path, found);
    for (const field of found) removeAt(trial, field.slice(path.length));
    const fits = safeParse(option, trial).success;
    if (found.length === 0 && fits) {
      walk(option, value, path, unknown);
      return;
    }
    if (!best || (fits && !best.fits) || (fits === best.fits && found.length < best.unknown)) best = { option, unknown: found.length, fits };
  }
  if (best) walk(best.option, value, path, unknown);
}

function removeAt(value: unknown, path: Path): void {
  let node = value;
  for (const step of path.slice(0, -1)) node = (node as Record<string | number, unknown> | undefined)?.[step];
  const last = path.at(-1);
  if (isRecord(node) && typeof last === "string") delete node[last];
}

/**
 * Installs the rule for every /api/v1 route with a zod body schema. Runs before validation
 * and after the session check (registered after it), so a caller without a session still
 * gets 401; a refused body writes nothing, since no handler has run.
 */
export function requestBodyRule(app: FastifyInstance): void {
  app.addHook("preValidation", async (request, reply) => {
    if (!underBodyRule(request.routeOptions.url)) return;
    const schema = (request.routeOptions.schema as { body?: unknown } | undefined)?.body;
    if (!isZodSchema(schema)) return;
    // No body at all where the route's body is optional: the empty object it stands for.
    // (Fastify validates a missing body as null, which no `.optional()` schema accepts.)
    if (request.body == null) {
      if (bodyIsOptional(schema) && safeParse(schema, {}).success) request.body = {};
      return;
    }
    if (!(isRecord(request.body) || Array.isArray(request.body))) return;
    const unknown = applyBodyRule(schema, request.body);
    if (unknown.length === 0) return;
    const issues = unknown.map((path) => ({ path, message: UNKNOWN_FIELD }));
    return sendApiError(reply, 400, "invalid_request", `${unknown[0]}: ${UNKNOWN_FIELD}`, { issues, in: "body" });
  });
}

const isZodSchema = (value: unknown): value is $ZodType => value !== null && typeof value === "object" && "_zod" in value;

/** Whether a route may be called without a body (its schema is `.optional()`): the document says `required: false` for it. */
export const bodyIsOptional = (schema: unknown): boolean => isZodSchema(schema) && safeParse(schema, undefined).success;

// ---- the OpenAPI side --------------------------------------------------------------------

type Json = Record<string, unknown>;

/**
 * States the rule in the document: every object of an /api/v1 request body gets
 * `additionalProperties: false`, and (JSON bodies) every optional property accepts null.
 * Works on the input copies of the components (`…Input`, what request bodies refer to), before
 * they are merged with their output side, so responses keep their own schemas. A component
 * both an /api/v1 body and a lenient one (/v1, /auth) refer to cannot be stated both ways: an error.
 */
export function strictRequestBodies(paths: Record<string, Record<string, Json>>, schemas: Record<string, Json>): void {
  const modes = new Map<string, "json" | "form" | "lenient">();
  const visit = (schema: unknown, mode: "json" | "form" | "lenient") => {
    if (!schema || typeof schema !== "object") return;
    const node = schema as Json;
    const ref = typeof node.$ref === "string" ? node.$ref.replace("#/components/schemas/", "") : undefined;
    if (ref !== undefined) {
      const before = modes.get(ref);
      if (before === mode) return;
      if (before !== undefined) throw new Error(`The component ${ref} is in request bodies under different rules (${before}, ${mode}): give the /api/v1 one its own schema`);
      modes.set(ref, mode);
      visit(schemas[ref], mode);
    }
    if (mode !== "lenient") tighten(node, mode === "json");
    for (const key of ["items", "additionalProperties", "not"]) visit(node[key], mode);
    for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) if (Array.isArray(node[key])) for (const item of node[key]) visit(item, mode);
    if (node.properties && typeof node.properties === "object") for (const property of Object.values(node.properties as Json)) visit(property, mode);
  };
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item)) {
      const content = (operation.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content ?? {};
      for (const [mediaType, media] of Object.entries(content)) {
        const mode = !underBodyRule(path) ? "lenient" : mediaType === "application/json" ? "json" : "form";
        visit(media.schema, mode);
      }
    }
  }
}

function tighten(node: Json, nullable: boolean): void {
  const isObject = node.type === "object" || (node.properties !== undefined && node.type === undefined);
  if (!isObject) return;
  if (node.additionalProperties === undefined) node.additionalProperties = false;
  if (!nullable || !node.properties) return;
  const required = new Set((node.required as string[] | undefined) ?? []);
  const properties = node.properties as Record<string, Json>;
  for (const [name, property] of Object.entries(properties)) {
    if (!required.has(name) && !acceptsNull(property)) properties[name] = orNull(property);
  }
}

function acceptsNull(schema: Json): boolean {
  const type = schema.type;
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  for (const key of ["anyOf", "oneOf"]) if (Array.isArray(schema[key]) && (schema[key] as Json[]).some(acceptsNull)) return true;
  return type === undefined && schema.$ref === undefined && !schema.anyOf && !schema.oneOf && !schema.allOf && !schema.enum && !("const" in schema) && !schema.not;
}

/**
 * The same schema, plus null: `type: [t, "null"]` where it has one type, else oneOf with null
 * (the two cannot both match; oasdiff reads oneOf as the same schema widened, anyOf as a removal).
 */
function orNull(schema: Json): Json {
  if (typeof schema.type === "string" && !("const" in schema)) {
    return { ...schema, type: [schema.type, "null"], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  }
  const { description, default: fallback, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), ...(fallback === undefined ? {} : { default: fallback }), oneOf: [rest, { type: "null" }] };
}
