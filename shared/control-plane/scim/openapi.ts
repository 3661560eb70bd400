// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { scimErrorSchema, scimGroupSchema, scimIdPathSchema, scimListQuerySchema, scimListSchema, scimPatchSchema, scimUserSchema } from './schemas.js';

const TAG = 'SCIM 2.0';
const SCIM = 'application/scim+json';
const AUTH = 'Authorization: Bearer <gw API key> (an organisation admin key or one with the scim scope). Errors use SCIM’s error schema.';
const flags = ['SCIM_ENABLED'];
const errorsOf = (description: string) => ({ description, schema: scimErrorSchema, contentType: SCIM });

const resourceOperations = (resource: 'Users' | 'Groups', schema: typeof scimUserSchema | typeof scimGroupSchema): OpenApiOperation[] => {
  const one = resource.slice(0, -1);
  const base = `/v1/scim/v2/${resource}`;
  const common = { tags: [TAG], scopes: ['scim'], featureFlags: flags, errors: [400, 401, 403, 404, 409] };
  return [
    { ...common, method: 'post', path: base, operationId: `scimCreate${one}`, summary: `Create a ${one}`, description: AUTH, body: schema, responses: { '201': { description: `The ${one}.`, schema, contentType: SCIM }, default: errorsOf('SCIM error') } },
    { ...common, method: 'get', path: base, operationId: `scimList${resource}`, summary: `List ${resource}`, description: `Filter and page. ${AUTH}`, query: scimListQuerySchema, responses: { '200': { description: 'ListResponse.', schema: scimListSchema, contentType: SCIM }, default: errorsOf('SCIM error') } },
    { ...common, method: 'get', path: `${base}/{id}`, operationId: `scimGet${one}`, summary: `Get a ${one}`, pathParameters: scimIdPathSchema, responses: { '200': { description: `The ${one}.`, schema, contentType: SCIM }, default: errorsOf('SCIM error') } },
    { ...common, method: 'put', path: `${base}/{id}`, operationId: `scimReplace${one}`, summary: `Replace a ${one}`, pathParameters: scimIdPathSchema, body: schema, responses: { '200': { description: `The ${one}.`, schema, contentType: SCIM }, default: errorsOf('SCIM error') } },
    {
      ...common,
      method: 'patch',
      path: `${base}/{id}`,
      operationId: `scimPatch${one}`,
      summary: `Patch a ${one}`,
      description: 'add / replace / remove as Okta and Entra ID send them, with or without a path (value filters such as members[value eq "…"] included).',
      pathParameters: scimIdPathSchema,
      body: scimPatchSchema,
      responses: resource === 'Users' ? { '200': { description: 'The User.', schema, contentType: SCIM }, default: errorsOf('SCIM error') } : { '204': { description: 'Patched.' }, default: errorsOf('SCIM error') },
    },
    {
      ...common,
      method: 'delete',
      path: `${base}/{id}`,
      operationId: `scimDelete${one}`,
      summary: resource === 'Users' ? 'Deactivate a User' : 'Delete a Group (unlink the workspace)',
      description: resource === 'Users' ? 'The user stays, inactive, with its API keys revoked.' : 'Removes its memberships; the workspace itself stays.',
      pathParameters: scimIdPathSchema,
      responses: { '204': { description: 'Done.' }, default: errorsOf('SCIM error') },
    },
  ];
};

const discovery = (path: string, operationId: string, summary: string): OpenApiOperation => ({
  method: 'get',
  path: `/v1/scim/v2${path}`,
  operationId,
  summary,
  tags: [TAG],
  scopes: ['scim'],
  featureFlags: flags,
  ...(path.endsWith('{id}') ? { pathParameters: scimIdPathSchema } : {}),
  responses: { '200': { description: summary, contentType: SCIM }, default: errorsOf('SCIM error') },
  errors: [401, 403, 404],
});

export const openApiOperations: OpenApiOperation[] = [
  ...resourceOperations('Users', scimUserSchema),
  ...resourceOperations('Groups', scimGroupSchema),
  discovery('/ServiceProviderConfig', 'scimServiceProviderConfig', 'What gw’s SCIM service supports'),
  discovery('/ResourceTypes', 'scimResourceTypes', 'The User and Group resource types'),
  discovery('/ResourceTypes/{id}', 'scimResourceType', 'One resource type'),
  discovery('/Schemas', 'scimSchemas', 'The schemas gw serves'),
  discovery('/Schemas/{id}', 'scimSchema', 'One schema, by URN'),
];
