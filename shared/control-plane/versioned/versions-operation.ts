// Documentation: an operation a resource definition lists in extraOperations (scripts/openapi.ts reads it).
import type * as z from 'zod';
import type { OpenApiOperation } from '../openapi-operation.js';
import { listScopeOf, type Scope } from '../../auth/scopes.js';
import type { OperationDoc } from '../resource/operation-doc.js';
import { workspaceQuerySchema } from '../query-schemas.js';

/** The OpenAPI operation of `GET <itemPath>/versions` (versioned-routes.ts). */
export function versionsOperation(resource: {
  itemPath: string;
  tag: string;
  featureFlag?: string;
  readScope: Scope;
  idPath: z.ZodObject;
  list: z.ZodType;
  operationId: string;
  summary: string;
}): OpenApiOperation {
  const listScope = listScopeOf(resource.readScope);
  return {
    tags: [resource.tag],
    ...(resource.featureFlag ? { featureFlags: [resource.featureFlag] } : {}),
    method: 'get',
    path: `${resource.itemPath}/versions`,
    operationId: resource.operationId,
    summary: resource.summary,
    scopes: listScope ? [resource.readScope, listScope] : [resource.readScope],
    pathParameters: resource.idPath,
    query: workspaceQuerySchema,
    responses: { '200': { description: 'Every version, newest first.', schema: resource.list } },
    errors: [401, 403, 404],
  } as OpenApiOperation;
}

/**
 * A read's documentation with its own query (`?version=`, besides `?workspace_id=`). OperationDoc documents that
 * a field it names replaces the derived one; its type does not list `query` yet (see the resource framework).
 */
export function readDocWithQuery(doc: OperationDoc, query: z.ZodObject): OperationDoc {
  return Object.assign({ query }, doc);
}
