import * as z from 'zod';

/**
 * The schemas every resource has in the same shape. Each resource's schemas.ts still exports its own (they name
 * the components of docs/openapi.yaml), built here so the shapes cannot drift apart.
 */

/** One page of a resource: `{ object: 'list', data, has_more, next_cursor }` (pagination.ts). */
export function resourceListSchema(view: z.ZodType, id: string) {
  return z.object({ object: z.literal('list'), data: z.array(view), has_more: z.boolean(), next_cursor: z.string().nullable() }).meta({ id });
}

/** What a delete answers: `{ object, id, deleted: true }`. */
export function resourceDeletedSchema(object: string, id: string) {
  return z.object({ object: z.literal(object), id: z.string(), deleted: z.literal(true) }).meta({ id });
}

/** The record's path parameter (documentation: the routes read it from the router's params). */
export function resourceIdPathSchema<Name extends string>(name: Name, description: string) {
  return z.object({ [name]: z.string().meta({ description }) } as Record<Name, z.ZodString>);
}
