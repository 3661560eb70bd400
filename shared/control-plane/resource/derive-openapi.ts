// Documentation only: scripts/openapi/modules.ts calls it for every definition; never imported by a handler.
import type { OpenApiOperation } from '../../../scripts/openapi/operation.js';
import { listScopeOf } from '../../auth/scopes.js';
import { idParamOf, type ResourceDefinition } from './define-resource.js';
import type { OperationDoc } from './operation-doc.js';

/**
 * The OpenAPI operations of a resource's derived routes (see derive-routes.ts), followed by its hand-written extra
 * operations. Scopes, parameters, bodies, responses and error statuses follow from the definition, so the
 * document says what the routes do; the definition's `docs` add the words and may override any derived field.
 */
export function resourceOperations(definition: ResourceDefinition): OpenApiOperation[] {
  const { path, tag, scopes, schemas, names, docs } = definition;
  const itemPath = `${path}/{${idParamOf(definition)}}`;
  const onRecord = definition.workspace === 'organisation' ? {} : { query: schemas.workspaceQuery };
  const conflict = definition.errors?.conflict ? [409] : [];
  const secretStore = definition.errors?.secretStore ? [503] : [];
  const listScope = listScopeOf(scopes.read);
  const listQueryNamesWorkspace = 'workspace_id' in schemas.listQuery.shape;

  const operation = (doc: OperationDoc, derived: Omit<OpenApiOperation, 'summary' | 'tags'>): OpenApiOperation => {
    const { response, ...overrides } = doc;
    const responses = Object.fromEntries(Object.entries(derived.responses).map(([status, value]) => [status, response ? { ...value, description: response } : value]));
    const merged: OpenApiOperation = {
      ...derived,
      tags: [tag],
      ...(definition.featureFlag ? { featureFlags: [definition.featureFlag] } : {}),
      ...overrides,
      responses,
    };
    return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)) as OpenApiOperation;
  };

  return [
    operation(docs.create, {
      method: 'post',
      path,
      operationId: `create${names.operation}`,
      scopes: [scopes.create],
      ...(definition.workspace === 'query' ? onRecord : {}),
      body: schemas.create,
      responses: { '201': { description: `The ${names.singular}.`, schema: schemas.view } },
      errors: [400, 401, 403, 404, ...conflict, ...secretStore],
    }),
    operation(docs.list, {
      method: 'get',
      path,
      operationId: `list${names.operations}`,
      scopes: listScope ? [scopes.read, listScope] : [scopes.read],
      query: schemas.listQuery,
      responses: { '200': { description: `One page of ${names.plural}.`, schema: schemas.list } },
      errors: listQueryNamesWorkspace ? [400, 401, 403, 404] : [400, 401, 403],
    }),
    operation(docs.get, {
      method: 'get',
      path: itemPath,
      operationId: `get${names.operation}`,
      scopes: [scopes.read],
      pathParameters: schemas.idPath,
      ...onRecord,
      responses: { '200': { description: `The ${names.singular}.`, schema: schemas.view } },
      errors: [401, 403, 404],
    }),
    ...(definition.updateMethods ?? ['PATCH']).map((method) =>
      operation(docs.update, {
        method: method === 'PATCH' ? 'patch' : 'put',
        path: itemPath,
        operationId: `${method === 'PATCH' ? 'update' : 'replace'}${names.operation}`,
        scopes: [scopes.update],
        pathParameters: schemas.idPath,
        ...onRecord,
        body: schemas.update,
        responses: { '200': { description: `The updated ${names.singular}.`, schema: schemas.view } },
        errors: [400, 401, 403, 404, ...conflict, ...secretStore],
      }),
    ),
    operation(docs.delete, {
      method: 'delete',
      path: itemPath,
      operationId: `delete${names.operation}`,
      scopes: [scopes.delete],
      pathParameters: schemas.idPath,
      ...onRecord,
      responses: { '200': { description: 'Deleted.', schema: schemas.deleted } },
      errors: [401, 403, 404, ...secretStore],
    }),
    ...((definition.extraOperations ?? []) as OpenApiOperation[]),
  ];
}
