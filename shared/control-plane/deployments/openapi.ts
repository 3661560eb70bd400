// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../../../scripts/openapi/operation.js';
import {
  deploymentCreateSchema,
  deploymentDeletedSchema,
  deploymentIdPathSchema,
  deploymentListQuerySchema,
  deploymentListSchema,
  deploymentSchema,
  deploymentUpdateSchema,
} from './schemas.js';

const TAG = 'Deployments';
const SCOPE_NOTE = 'A workspace key sees the deployments its workspace may use and changes only those assigned to it; others are a 404.';

const updateOperation = (method: 'patch' | 'put', operationId: string): OpenApiOperation => ({
  method,
  path: '/v1/deployments/{deploymentId}',
  operationId,
  summary: 'Update a deployment',
  description: `Fields sent replace the stored ones; restricted_to_workspaces: [] lifts a restriction. ${SCOPE_NOTE}`,
  tags: [TAG],
  scopes: ['deployments:update'],
  pathParameters: deploymentIdPathSchema,
  body: deploymentUpdateSchema,
  responses: { '200': { description: 'The updated deployment.', schema: deploymentSchema } },
  errors: [400, 401, 403, 404, 409],
});

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'post',
    path: '/v1/deployments',
    operationId: 'createDeployment',
    summary: 'Create a deployment',
    description: 'A named config that gateway requests select with x-gw-deployment: <slug>. The config is inline (checked like x-gw-config) or a saved config id with an optional version.',
    tags: [TAG],
    scopes: ['deployments:create'],
    body: deploymentCreateSchema,
    responses: { '201': { description: 'The deployment.', schema: deploymentSchema } },
    errors: [400, 401, 403, 404, 409],
  },
  {
    method: 'get',
    path: '/v1/deployments',
    operationId: 'listDeployments',
    summary: 'List deployments',
    description: `Newest first, optionally by type. ${SCOPE_NOTE}`,
    tags: [TAG],
    scopes: ['deployments:list', 'deployments:read'],
    query: deploymentListQuerySchema,
    responses: { '200': { description: 'One page of deployments.', schema: deploymentListSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/deployments/{deploymentId}',
    operationId: 'getDeployment',
    summary: 'Get a deployment',
    description: SCOPE_NOTE,
    tags: [TAG],
    scopes: ['deployments:read'],
    pathParameters: deploymentIdPathSchema,
    responses: { '200': { description: 'The deployment.', schema: deploymentSchema } },
    errors: [401, 403, 404],
  },
  updateOperation('patch', 'updateDeployment'),
  updateOperation('put', 'replaceDeployment'),
  {
    method: 'delete',
    path: '/v1/deployments/{deploymentId}',
    operationId: 'deleteDeployment',
    summary: 'Delete a deployment',
    tags: [TAG],
    scopes: ['deployments:delete'],
    pathParameters: deploymentIdPathSchema,
    responses: { '200': { description: 'Deleted.', schema: deploymentDeletedSchema } },
    errors: [401, 403, 404],
  },
];
