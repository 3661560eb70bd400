// Documentation only: scripts/openapi/modules.ts calls it for every definition; never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { listScopeOf } from '../../auth/scopes.js';
import { flagsOf, idParamOf, namesOf, operationsOf, scopesOf, type ResourceAction, type ResourceDefinition, type ResourceOperation } from './define-resource.js';
import type { OperationDoc } from './operation-doc.js';

/**
 * The OpenAPI operations of a resource's derived routes (see derive-routes.ts), followed by its hand-written extra
 * operations. Scopes, parameters, bodies, responses and error statuses follow from the definition, so the
 * document says what the routes do; the definition's `docs` add the words and may override any derived field.
 */
/** What the document needs of a definition: its data, none of its functions. */
export type DocumentedResource = Pick<
  ResourceDefinition,
  'kind' | 'path' | 'tag' | 'scopes' | 'schemas' | 'names' | 'docs' | 'workspace' | 'errors' | 'featureFlag' | 'featureFlags' | 'updateMethods' | 'extraOperations' | 'operations' | 'undocumented'
> & { actions?: ReadonlyArray<Pick<ResourceAction<never, never>, 'verb' | 'scope' | 'doc'>> };

export function resourceOperations(definition: DocumentedResource): OpenApiOperation[] {
  if (definition.undocumented) return [...(definition.extraOperations ?? [])];
  const { path, tag, schemas, docs } = definition;
  const scopes = scopesOf(definition);
  const names = namesOf(definition);
  const itemPath = `${path}/{${idParamOf(definition)}}`;
  const onRecord = definition.workspace === 'organisation' ? {} : { query: schemas.workspaceQuery };
  const conflict = definition.errors?.conflict ? [409] : [];
  const secretStore = definition.errors?.secretStore ? [503] : [];
  const listScope = listScopeOf(scopes.read);
  const listQueryNamesWorkspace = 'workspace_id' in schemas.listQuery.shape;

  const flags = flagsOf(definition);
  const has = new Set(operationsOf(definition));
  const docOf = (name: ResourceOperation): OperationDoc => {
    const doc = docs[name];
    if (!doc) throw new Error(`${definition.kind}: docs.${name} is missing`);
    return doc;
  };
  const operation = (doc: OperationDoc, derived: Omit<OpenApiOperation, 'summary' | 'tags'>): OpenApiOperation => {
    const { response, ...overrides } = doc;
    const responses = Object.fromEntries(Object.entries(derived.responses).map(([status, value]) => [status, response ? { ...value, description: response } : value]));
    const merged: OpenApiOperation = {
      ...derived,
      tags: [tag],
      ...(flags.length > 0 ? { featureFlags: [...flags] } : {}),
      ...overrides,
      responses: overrides.responses ?? responses,
    };
    return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)) as OpenApiOperation;
  };

  const onItem = { path: itemPath, pathParameters: schemas.idPath, ...onRecord };
  const answer = (status: string, description: string, schema: unknown) => ({ [status]: { description, schema } }) as OpenApiOperation['responses'];
  const derived: Record<ResourceOperation, () => OpenApiOperation[]> = {
    create: () => [
      operation(docOf('create'), {
        method: 'post',
        path,
        operationId: `create${names.operation}`,
        scopes: [scopes.create],
        ...(definition.workspace === 'query' ? onRecord : {}),
        body: schemas.create,
        responses: answer('201', `The ${names.singular}.`, schemas.view),
        errors: [400, 401, 403, 404, ...conflict, ...secretStore],
      }),
    ],
    list: () => [
      operation(docOf('list'), {
        method: 'get',
        path,
        operationId: `list${names.operations}`,
        scopes: listScope ? [scopes.read, listScope] : [scopes.read],
        query: schemas.listQuery,
        responses: answer('200', `One page of ${names.plural}.`, schemas.list),
        errors: listQueryNamesWorkspace ? [400, 401, 403, 404] : [400, 401, 403],
      }),
    ],
    get: () => [
      operation(docOf('get'), { method: 'get', ...onItem, operationId: `get${names.operation}`, scopes: [scopes.read], responses: answer('200', `The ${names.singular}.`, schemas.view), errors: [401, 403, 404] }),
    ],
    update: () =>
      (definition.updateMethods ?? ['PATCH']).map((method) =>
        operation(docOf('update'), {
          method: method === 'PATCH' ? 'patch' : 'put',
          ...onItem,
          operationId: `${method === 'PATCH' ? 'update' : 'replace'}${names.operation}`,
          scopes: [scopes.update],
          body: schemas.update,
          responses: answer('200', `The updated ${names.singular}.`, schemas.view),
          errors: [400, 401, 403, 404, ...conflict, ...secretStore],
        }),
      ),
    delete: () => [
      operation(docOf('delete'), { method: 'delete', ...onItem, operationId: `delete${names.operation}`, scopes: [scopes.delete], responses: answer('200', 'Deleted.', schemas.deleted), errors: [401, 403, 404, ...secretStore] }),
    ],
  };
  const actions = (definition.actions ?? []).map((action) =>
    operation(action.doc, {
      method: 'post',
      ...onItem,
      path: `${itemPath}/${action.verb}`,
      operationId: `${action.verb}${names.operation}`,
      scopes: [action.scope],
      responses: answer('200', `The ${names.singular}.`, schemas.view),
      errors: [401, 403, 404],
    }),
  );
  return [
    ...[...has].flatMap((name) => derived[name]()),
    ...actions,
    ...(definition.extraOperations ?? []),
  ];
}
