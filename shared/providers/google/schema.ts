import { badRequest } from '../../http/errors.js';

type JsonObject = Record<string, unknown>;

/**
 * Gemini's `Schema` is a subset of OpenAPI 3.0, not JSON Schema: it refuses keywords it does not know
 * (`additionalProperties`, `$schema`, `$ref`, `const`, …), wants upper-case types, has `nullable` instead of
 * `"type": [..., "null"]`, and takes string enums only. Clients write JSON Schema (OpenAI tools, Zod, Pydantic),
 * so gw rewrites it: references are inlined, `oneOf` becomes `anyOf`, `const` becomes a one-value enum, and
 * keywords Gemini cannot express are dropped (they only narrow what the model may produce).
 */
const TYPE_NAMES: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

/** Keywords copied as they are; everything else not handled below is dropped. */
const KEPT_KEYWORDS = ['title', 'description', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'default', 'example', 'propertyOrdering'];

/** `format` values Gemini honours, per type; others (uri, uuid, …) make it refuse the schema. */
const FORMATS: Record<string, readonly string[]> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};

/** Deeper than this is a self-referencing `$ref` loop, which Gemini's schema has no way to express. */
const MAX_DEPTH = 24;

export function toGeminiSchema(schema: unknown, param: string): JsonObject {
  if (!isObject(schema)) throw badRequest('invalid_schema', `${param} must be a JSON Schema object`, param);
  const definitions = { ...asObject(schema.definitions), ...asObject(schema.$defs) };
  return convert(schema, { definitions, param, depth: 0 });
}

interface Context {
  definitions: JsonObject;
  param: string;
  depth: number;
}

function convert(input: JsonObject, context: Context): JsonObject {
  if (context.depth > MAX_DEPTH) {
    throw badRequest('invalid_schema', `${context.param} nests deeper than ${MAX_DEPTH} levels (a recursive $ref?); Gemini cannot express recursive schemas`, context.param);
  }
  const schema = resolveReference(input, context);
  const next: Context = { ...context, depth: context.depth + 1 };
  const out: JsonObject = {};

  for (const keyword of KEPT_KEYWORDS) if (schema[keyword] !== undefined) out[keyword] = schema[keyword];

  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants) return withVariants(out, variants, next);
  if (Array.isArray(schema.allOf)) return { ...out, ...convert(mergeAllOf(schema.allOf, schema, context), next) };

  applyType(out, schema.type, context);

  if (schema.const !== undefined) out.enum = [String(schema.const)];
  else if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value) => value !== null);
    if (values.length < schema.enum.length) out.nullable = true;
    out.enum = values.map((value) => String(value));
  }
  if (out.enum !== undefined && out.type === undefined) out.type = 'STRING';

  if (typeof schema.format === 'string' && typeof out.type === 'string' && FORMATS[out.type]?.includes(schema.format)) out.format = schema.format;
  if (isObject(schema.properties)) {
    const properties: JsonObject = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      properties[name] = isObject(property) ? convert(property, next) : {};
    }
    out.properties = properties;
    if (out.type === undefined) out.type = 'OBJECT';
  }
  if (Array.isArray(schema.required)) out.required = schema.required.filter((name) => typeof name === 'string');
  if (isObject(schema.items)) out.items = convert(schema.items, next);
  else if (Array.isArray(schema.items) && isObject(schema.items[0])) out.items = convert(schema.items[0], next);
  if (out.type === 'ARRAY' && out.items === undefined) out.items = { type: 'STRING' };
  return out;
}

/** `"type": "string"`, `"type": ["string", "null"]` or several types (which become `anyOf`). */
function applyType(out: JsonObject, type: unknown, context: Context): void {
  const types = (Array.isArray(type) ? type : type === undefined ? [] : [type]).map((name) => {
    const mapped = typeof name === 'string' ? TYPE_NAMES[name.toLowerCase()] : undefined;
    if (!mapped) throw badRequest('invalid_schema', `${context.param} has an unknown type ${JSON.stringify(name)}`, context.param);
    return mapped;
  });
  const nonNull = types.filter((name) => name !== 'NULL');
  if (nonNull.length < types.length && nonNull.length > 0) out.nullable = true;
  if (nonNull.length === 1) out.type = nonNull[0];
  else if (nonNull.length > 1) out.anyOf = nonNull.map((name) => (name === 'ARRAY' ? { type: name, items: { type: 'STRING' } } : { type: name }));
  else if (types.length === 1) out.type = 'NULL';
}

/** `anyOf: [X, {type: null}]` is how most generators spell "X or null": that is `X` with `nullable`. */
function withVariants(out: JsonObject, variants: unknown[], context: Context): JsonObject {
  const objects = variants.filter(isObject);
  const nonNull = objects.filter((variant) => variant.type !== 'null');
  const nullable = nonNull.length < objects.length;
  if (nonNull.length === 1) return { ...convert(nonNull[0], context), ...out, ...(nullable ? { nullable: true } : {}) };
  return { ...out, anyOf: nonNull.map((variant) => convert(variant, context)), ...(nullable ? { nullable: true } : {}) };
}

function resolveReference(schema: JsonObject, context: Context): JsonObject {
  if (typeof schema.$ref !== 'string') return schema;
  const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref);
  const target = match ? context.definitions[decodeURIComponent(match[1]).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  if (!isObject(target)) {
    throw badRequest('invalid_schema', `${context.param} has a $ref gw cannot resolve: ${schema.$ref} (only local #/$defs/… and #/definitions/… references)`, context.param);
  }
  const { $ref: _ref, ...siblings } = schema;
  return { ...target, ...siblings };
}

/** `allOf` of object schemas: one object with every member's properties and requirements. */
function mergeAllOf(members: unknown[], parent: JsonObject, context: Context): JsonObject {
  const { allOf: _allOf, ...rest } = parent;
  const merged: JsonObject = { ...rest };
  for (const member of members.filter(isObject).map((entry) => resolveReference(entry, context))) {
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isObject(value)) merged.properties = { ...asObject(merged.properties), ...value };
      else if (key === 'required' && Array.isArray(value)) merged.required = [...(Array.isArray(merged.required) ? merged.required : []), ...value];
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  return merged;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}
