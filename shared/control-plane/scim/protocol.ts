import { filter as compileFilter, parse as parseFilter, type Filter } from 'scim2-parse-filter';
import { GatewayError, toGatewayError } from '../../http/errors.js';
import type { NeutralResponse } from '../../http/types.js';

/** SCIM 2.0 (RFC 7643/7644) wire constants and helpers: content type, error and list messages, filters, paging. */
export const SCIM_PATH_PREFIX = '/v1/scim/v2';
export const SCIM_CONTENT_TYPE = 'application/scim+json';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType = 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

/** A SCIM error: status, optional scimType (RFC 7644 §3.12) and gw's own code. */
export class ScimError extends GatewayError {
  constructor(status: number, readonly scimType: ScimType | undefined, message: string, code = scimType ?? 'invalid_request') {
    super(status, code, message);
  }
}

export function isScimPath(path: string): boolean {
  return path === SCIM_PATH_PREFIX || path.startsWith(`${SCIM_PATH_PREFIX}/`);
}

export function scimResponse(status: number, payload: unknown, headers: Record<string, string> = {}): NeutralResponse {
  return { status, headers: { 'content-type': SCIM_CONTENT_TYPE, ...headers }, body: status === 204 ? '' : JSON.stringify(payload) };
}

/**
 * Any error as SCIM's error message: `status` as a string, `scimType` where one applies, `detail` for people.
 * gw's own code rides along as `code`, which SCIM clients ignore.
 */
export function scimErrorResponse(thrown: unknown, headers: Record<string, string> = {}): NeutralResponse {
  const error = toGatewayError(thrown);
  const scimType = error instanceof ScimError ? error.scimType : error.status === 409 ? 'uniqueness' : error.status === 400 ? 'invalidValue' : undefined;
  const body: Record<string, unknown> = { schemas: [ERROR_SCHEMA], status: String(error.status), detail: error.message, code: error.code };
  if (scimType) body.scimType = scimType;
  return scimResponse(error.status, body, { ...error.headers, ...headers });
}

export interface ScimPage {
  startIndex: number;
  count: number;
}

const MAX_COUNT = 200;

/** `startIndex` (1-based, default 1; < 1 is read as 1) and `count` (default and maximum 200; < 0 is read as 0), per RFC 7644 §3.4.2.4. */
export function readScimPage(query: Record<string, string | undefined>): ScimPage {
  const number = (value: string | undefined, name: string, fallback: number) => {
    if (value === undefined || value === '') return fallback;
    if (!/^-?\d{1,9}$/.test(value)) throw new ScimError(400, 'invalidValue', `${name} must be an integer`);
    return Number(value);
  };
  return { startIndex: Math.max(1, number(query.startIndex, 'startIndex', 1)), count: Math.min(MAX_COUNT, Math.max(0, number(query.count, 'count', MAX_COUNT))) };
}

export function listResponse(resources: unknown[], page: ScimPage): NeutralResponse {
  const slice = resources.slice(page.startIndex - 1, page.startIndex - 1 + page.count);
  return scimResponse(200, { schemas: [LIST_RESPONSE_SCHEMA], totalResults: resources.length, startIndex: page.startIndex, itemsPerPage: slice.length, Resources: slice });
}

// id and externalId are case-exact (RFC 7643 §3.1); every other string attribute gw exposes compares without case.
const CASE_EXACT = new Set(['id', 'externalid']);

/**
 * The resources matching a `filter` (eq, co, sw, and, plus whatever else the parser supports). Case-insensitive
 * attributes are compared in lower case on both sides. A filter that does not parse is a 400 invalidFilter.
 */
export function applyFilter<Resource extends Record<string, unknown>>(resources: Resource[], expression: string | undefined): Resource[] {
  if (expression === undefined || expression.trim() === '') return resources;
  let ast: Filter;
  try {
    ast = lowerCased(parseFilter(expression));
  } catch (error) {
    throw new ScimError(400, 'invalidFilter', `filter: cannot parse ${JSON.stringify(expression.slice(0, 200))} (${(error as Error).message})`);
  }
  const matches = compileFilter(ast);
  return resources.filter((resource) => matches(lowerCasedResource(resource)));
}

function lowerCased(node: Filter): Filter {
  const copy = { ...node } as Filter & { compValue?: unknown; attrPath?: string; filters?: Filter[]; valFilter?: Filter; filter?: Filter };
  if (typeof copy.compValue === 'string' && !CASE_EXACT.has(String(copy.attrPath).toLowerCase())) copy.compValue = copy.compValue.toLowerCase();
  if (copy.filters) copy.filters = copy.filters.map(lowerCased);
  if (copy.valFilter) copy.valFilter = lowerCased(copy.valFilter);
  if (copy.filter) copy.filter = lowerCased(copy.filter);
  return copy;
}

function lowerCasedResource(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return CASE_EXACT.has(key.toLowerCase()) ? value : value.toLowerCase();
  if (Array.isArray(value)) return value.map((item) => lowerCasedResource(item, key));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, lowerCasedResource(item, name)]));
  return value;
}
