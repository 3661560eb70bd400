// Documentation only: the openapi.ts files of routes without a resource definition build their descriptors with it.
import type { OpenApiOperation } from './openapi-operation.js';

/**
 * The OpenAPI descriptors of routes that are not CRUD (the observability reads, the model catalog, policy actions)
 * repeat their tag, scopes, feature flags, method and usual error statuses. A family holds what its operations
 * share; each operation then says only what is its own. CRUD resources derive theirs from their definition instead
 * (resource/derive-openapi.ts).
 */

/** What every operation of a family shares. */
export interface OperationFamily {
  tag: string;
  scopes?: string[];
  featureFlags?: string[];
}

type Response = OpenApiOperation['responses'][string];

/** One operation's own part: the family adds tags, scopes and flags; `response` is its success (200 unless `status`). */
export interface FamilyOperationDoc extends Omit<OpenApiOperation, 'method' | 'tags' | 'responses' | 'errors'> {
  response: Response;
  status?: string;
  /** Replaces the statuses the helper derives. */
  errors?: number[];
}

/** Errors of a read taking its input from the query string (bad input, no key, no scope, unknown workspace). */
const LIST_ERRORS = [400, 401, 403, 404];
/** Errors of a read of one record by its path id. */
const GET_ERRORS = [401, 403, 404];

export function operationFamily(family: OperationFamily) {
  const operation = (method: OpenApiOperation['method'], defaultErrors: number[], doc: FamilyOperationDoc): OpenApiOperation => {
    const { response, status = '200', errors = defaultErrors, ...own } = doc;
    return {
      method,
      tags: [family.tag],
      ...(family.scopes ? { scopes: family.scopes } : {}),
      ...(family.featureFlags ? { featureFlags: family.featureFlags } : {}),
      // An operation may name its own scopes (a family of reads and writes shares only its tag and flags).
      ...own,
      responses: { [status]: response },
      errors,
    };
  };
  return {
    /** `GET` of a page or a query: errors 400, 401, 403, 404 unless the doc says otherwise. */
    list: (doc: FamilyOperationDoc) => operation('get', LIST_ERRORS, doc),
    /** `GET` of one record: errors 401, 403, 404 unless the doc says otherwise. */
    get: (doc: FamilyOperationDoc) => operation('get', GET_ERRORS, doc),
    /** `POST` of an action or a job: errors 400, 401, 403, 404 unless the doc says otherwise. */
    post: (doc: FamilyOperationDoc) => operation('post', LIST_ERRORS, doc),
    /** `PUT` of a whole record: errors 400, 401, 403, 404 unless the doc says otherwise. */
    put: (doc: FamilyOperationDoc) => operation('put', LIST_ERRORS, doc),
  };
}

/** The observability reads (logs, traces, analytics, exports): tag Observability, scope logs:read. */
export const observabilityReads = operationFamily({ tag: 'Observability', scopes: ['logs:read'] });
