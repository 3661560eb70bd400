import { filter as compileFilter, parse as parseFilter } from 'scim2-parse-filter';
import * as z from 'zod';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, PATCH_OP_SCHEMA, ScimError, USER_SCHEMA } from './protocol.js';

type Json = Record<string, unknown>;

/** A PatchOp message (RFC 7644 §3.5.2). `op` is read without case: Entra ID sends "Replace", "Add", "Remove". */
export const patchRequestSchema = z.object({
  schemas: z.array(z.string()).refine((schemas) => schemas.includes(PATCH_OP_SCHEMA), `schemas must contain ${PATCH_OP_SCHEMA}`),
  Operations: z
    .array(
      z.object({
        op: z.string().transform((op) => op.toLowerCase()).pipe(z.enum(['add', 'replace', 'remove'])),
        path: z.string().min(1).max(1024).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(1000),
});

export type PatchOperation = z.output<typeof patchRequestSchema>['Operations'][number];

const PATH = /^([A-Za-z_$][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z_$][\w$-]*))?$/;

/**
 * Applies PatchOp operations to a resource's JSON form (a copy) and returns it; the caller maps the result back
 * and validates it. Paths: `attr`, `attr.sub`, `attr[filter]`, `attr[filter].sub`, optionally prefixed by a schema
 * URN (the enterprise extension's attributes land in its own object). Without a path, the value's attributes
 * are applied one by one (Okta's and Entra ID's `{"op": "replace", "value": {"active": false}}`).
 */
export function applyPatch(resource: Json, operations: PatchOperation[]): Json {
  const result = structuredClone(resource);
  for (const operation of operations) {
    if (operation.path === undefined) {
      if (operation.op === 'remove') throw new ScimError(400, 'noTarget', 'remove needs a path');
      if (typeof operation.value !== 'object' || operation.value === null || Array.isArray(operation.value)) {
        throw new ScimError(400, 'invalidValue', `${operation.op} without a path needs an object value`);
      }
      for (const [name, value] of Object.entries(operation.value as Json)) {
        if (name.startsWith('urn:') && typeof value === 'object' && value !== null && !Array.isArray(value)) {
          for (const [inner, innerValue] of Object.entries(value as Json)) applyAt(result, `${name}:${inner}`, operation.op, innerValue);
        } else {
          applyAt(result, name, operation.op, value);
        }
      }
    } else {
      applyAt(result, operation.path, operation.op, operation.value);
    }
  }
  return result;
}

function applyAt(resource: Json, rawPath: string, op: PatchOperation['op'], value: unknown): void {
  let target = resource;
  let path = rawPath;
  for (const core of [USER_SCHEMA, GROUP_SCHEMA]) {
    if (path.toLowerCase().startsWith(`${core.toLowerCase()}:`)) path = path.slice(core.length + 1);
  }
  if (path.toLowerCase().startsWith(`${ENTERPRISE_USER_SCHEMA.toLowerCase()}:`)) {
    path = path.slice(ENTERPRISE_USER_SCHEMA.length + 1);
    target = (resource[ENTERPRISE_USER_SCHEMA] ??= {}) as Json;
  }
  const match = PATH.exec(path);
  if (!match) throw new ScimError(400, 'invalidPath', `path ${JSON.stringify(rawPath.slice(0, 200))} is not an attribute path gw understands`);
  const [, attribute, filterText, sub] = match;
  const name = existingKey(target, attribute);
  if (filterText === undefined) {
    applyToAttribute(target, name, sub, op, value);
    return;
  }
  let matches: (item: unknown) => boolean;
  try {
    matches = compileFilter(parseFilter(filterText));
  } catch {
    throw new ScimError(400, 'invalidPath', `the filter in path ${JSON.stringify(rawPath.slice(0, 200))} does not parse`);
  }
  const items = Array.isArray(target[name]) ? (target[name] as Json[]) : [];
  const selected = items.filter((item) => matches(item));
  if (op === 'remove') {
    if (sub === undefined) target[name] = items.filter((item) => !selected.includes(item));
    else for (const item of selected) delete item[existingKey(item, sub)];
    return;
  }
  if (sub === undefined) {
    target[name] = [...items.filter((item) => !selected.includes(item)), ...asArray(value)];
    return;
  }
  if (selected.length === 0) {
    // `emails[type eq "work"].value` with no work e-mail yet: the filter's equality names the new item.
    const seed = equalityOf(filterText);
    target[name] = [...items, { ...seed, [sub]: value }];
    return;
  }
  for (const item of selected) item[existingKey(item, sub)] = value;
}

function applyToAttribute(target: Json, name: string, sub: string | undefined, op: PatchOperation['op'], value: unknown): void {
  if (sub !== undefined) {
    const parent = (typeof target[name] === 'object' && target[name] !== null && !Array.isArray(target[name]) ? target[name] : (target[name] = {})) as Json;
    const key = existingKey(parent, sub);
    if (op === 'remove') delete parent[key];
    else parent[key] = value;
    return;
  }
  const current = target[name];
  if (op === 'remove') {
    // Entra ID removes members as {"op": "Remove", "path": "members", "value": [{"value": "<id>"}]}.
    if (Array.isArray(current) && value !== undefined) {
      const drop = new Set(asArray(value).map(valueOf));
      target[name] = current.filter((item) => !drop.has(valueOf(item)));
    } else {
      delete target[name];
    }
    return;
  }
  if (op === 'add' && Array.isArray(current)) {
    const seen = new Set(current.map(valueOf));
    target[name] = [...current, ...asArray(value).filter((item) => !seen.has(valueOf(item)))];
    return;
  }
  target[name] = value;
}

/** The resource's own spelling of an attribute (names are case-insensitive), or the given one. */
function existingKey(object: Json, name: string): string {
  return Object.keys(object).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function valueOf(item: unknown): unknown {
  return typeof item === 'object' && item !== null ? JSON.stringify((item as Json).value ?? item) : JSON.stringify(item);
}

function equalityOf(filterText: string): Json {
  const equality = /^\s*([A-Za-z_$][\w$-]*)\s+eq\s+"([^"]*)"\s*$/i.exec(filterText);
  return equality ? { [equality[1]]: equality[2] } : {};
}
