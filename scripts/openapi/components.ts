import * as z from 'zod';

export type JsonSchema = Record<string, unknown>;

const COMPONENT_PREFIX = '#/components/schemas/';
// Where zod puts schemas that carry a global `.meta({ id })` but were not registered here.
const SHARED_DEFS = `${COMPONENT_PREFIX}__shared#/$defs/`;

/**
 * The named schemas of the document. Every schema gets exactly one name: its own `.meta({ id })` when it has
 * one, otherwise one derived from its export name; a clash is resolved the same way on every run.
 */
export class ComponentRegistry {
  private readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<string, z.ZodType>();

  /** Registers a schema (once; a second name for the same schema is ignored) and returns its name. */
  add(schema: z.ZodType, preferredName: string, qualifier: string): string {
    const existing = this.registry.get(schema)?.id;
    if (existing) return existing;
    const ownId = (z.globalRegistry.get(schema) as { id?: unknown } | undefined)?.id;
    let name = typeof ownId === 'string' ? ownId : preferredName;
    if (this.names.has(name)) name = `${qualifier}${name}`;
    for (let suffix = 2; this.names.has(name); suffix++) name = `${qualifier}${preferredName}${suffix}`;
    this.names.set(name, schema);
    this.registry.add(schema, { id: name });
    return name;
  }

  nameOf(schema: z.ZodType): string | undefined {
    return this.registry.get(schema)?.id;
  }

  /** Every component as OpenAPI 3.1 (JSON Schema 2020-12), sorted by name, with refs between components. */
  toSchemas(): Record<string, JsonSchema> {
    const converted = z.toJSONSchema(this.registry, { io: 'input', unrepresentable: 'any', uri: (id) => `${COMPONENT_PREFIX}${id}` }).schemas as Record<string, JsonSchema>;
    const all: Record<string, JsonSchema> = {};
    for (const [name, schema] of Object.entries(converted)) {
      if (name === '__shared') {
        for (const [defName, def] of Object.entries((schema.$defs ?? {}) as Record<string, JsonSchema>)) {
          if (converted[defName] || all[defName]) throw new Error(`Two different schemas are both named '${defName}' (one by .meta({ id }))`);
          all[defName] = def;
        }
        continue;
      }
      const { $schema: _schema, $id: _id, ...rest } = schema;
      all[name] = rest;
    }
    return Object.fromEntries(Object.keys(all).sort().map((name) => [name, rewriteSharedRefs(all[name]) as JsonSchema]));
  }
}

/** A schema converted on its own (a parameter), without names: everything inline. */
export function inlineSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _schema, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', metadata: z.registry(), reused: 'inline' }) as JsonSchema;
  return rest;
}

/** `fooBarSchema` → `FooBar`. */
export function componentNameOf(exportName: string): string {
  const base = exportName.replace(/Schema$/, '');
  return base.charAt(0).toUpperCase() + base.slice(1);
}

export function refTo(name: string): JsonSchema {
  return { $ref: `${COMPONENT_PREFIX}${name}` };
}

function rewriteSharedRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteSharedRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [
      key,
      key === '$ref' && typeof entry === 'string' && entry.startsWith(SHARED_DEFS) ? `${COMPONENT_PREFIX}${entry.slice(SHARED_DEFS.length)}` : rewriteSharedRefs(entry),
    ]),
  );
}
