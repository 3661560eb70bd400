import type * as z from 'zod';
import type { OpenApiOperation } from '../openapi-operation.js';
import type { Scope } from '../../auth/scopes.js';
import { badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import { requireListScope } from '../authorization.js';
import type { FeatureFlag } from '../feature-flags.js';
import type { ResourceDefinition } from '../resource/define-resource.js';
import type { WorkspaceScope } from './types.js';
import { versionsOperation } from './versions-operation.js';

/**
 * What the control-plane resources kept as versioned documents (saved configs, guardrails: store/versioned/) add to
 * the CRUD routes their definitions derive: `?version=N` on a read, and `GET <path>/{id}/versions`.
 */

/** `?version=N` of a read: the latest (undefined) when absent or empty, else a positive integer or 400 `invalid_version`. */
export function readVersionQuery(query: Readonly<Record<string, string>>): number | undefined {
  const value = query.version;
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw badRequest('invalid_version', 'version must be a positive integer', 'version');
  return Number(value);
}

export interface VersionsRoute<V> {
  /** The resource's path, `/v1/guardrails`; the route is `<path>/{<idPath's one key>}/versions`. */
  path: string;
  idPath: z.ZodObject;
  tag: string;
  featureFlag?: FeatureFlag;
  readScope: Scope;
  versions: (at: WorkspaceScope, id: string) => Promise<V[]>;
  present: (version: V) => unknown;
  /** Its documentation: the response schema and the words. */
  docs: { list: z.ZodType; operationId: string; summary: string };
}

/**
 * `GET <path>/{id}/versions` as a definition's extra route and operation: every version, newest first, on one
 * page (a document keeps few versions). Spread into the definition.
 */
export function versionsRoute<V>(route: VersionsRoute<V>): { extraRoutes: NonNullable<ResourceDefinition['extraRoutes']>; extraOperations: OpenApiOperation[] } {
  const itemPath = `${route.path}/{${Object.keys(route.idPath.shape)[0]}}`;
  return {
    extraRoutes: (register, { scopeOf, checkedId }) =>
      register('GET', `${itemPath}/versions`, async (call) => {
        requireListScope(call.principal, route.readScope);
        const at = await scopeOf(call);
        const versions = await route.versions(at, checkedId(call));
        return jsonResponse(200, { object: 'list', data: versions.map(route.present), has_more: false, next_cursor: null });
      }),
    extraOperations: [versionsOperation({ ...route, ...route.docs, itemPath })],
  };
}
