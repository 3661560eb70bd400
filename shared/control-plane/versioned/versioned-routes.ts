import type { Scope } from '../../auth/scopes.js';
import { badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import { requireListScope } from '../authorization.js';
import type { ControlPlaneRequest, RouteRegistrar } from '../handler-types.js';
import type { ResourceScope } from '../resource/define-resource.js';

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
  /** The record's path, `/v1/guardrails/{guardrailId}`; `/versions` is added. */
  itemPath: string;
  readScope: Scope;
  scopeOf: (call: ControlPlaneRequest) => Promise<ResourceScope>;
  checkedId: (call: ControlPlaneRequest) => string;
  versions: (at: ResourceScope, id: string) => Promise<V[]>;
  present: (version: V) => unknown;
}

/** `GET <itemPath>/versions`: every version, newest first, on one page (a document keeps few versions). */
export function registerVersionsRoute<V>(register: RouteRegistrar, route: VersionsRoute<V>): void {
  register('GET', `${route.itemPath}/versions`, async (call) => {
    requireListScope(call.principal, route.readScope);
    const at = await route.scopeOf(call);
    const versions = await route.versions(at, route.checkedId(call));
    return jsonResponse(200, { object: 'list', data: versions.map(route.present), has_more: false, next_cursor: null });
  });
}
