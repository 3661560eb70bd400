import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../http/errors.js';

/**
 * Slugs of the resources found by id or slug (deployments, integrations, providers, MCP servers): one way to make
 * one from a name, and one answer when it is taken.
 */

/** A slug from a name: lower-case letters and digits joined by "-", at most 255 characters; `<prefix>-<random>` when none is left. */
export function slugOf(name: string, fallbackPrefix: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 255);
  return slug || `${fallbackPrefix}-${randomUUID().slice(0, 8)}`;
}

/**
 * Runs a write that claims a slug; the store's SlugTakenError (each slugged repository throws one of that name)
 * becomes the 409 `slug_taken` naming the `slug` field, with the resource's own message.
 */
export async function withSlugConflict<T>(slug: string, run: () => Promise<T>, message: (slug: string) => string = (taken) => `slug: '${taken}' is already in use here`): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error && error.name === 'SlugTakenError') throw new GatewayError(409, 'slug_taken', message(slug), { param: 'slug' });
    throw error;
  }
}
