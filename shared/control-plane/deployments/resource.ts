import { defineResource } from '../resource/define-resource.js';
import { validate } from '../../http/json-body.js';
import {
  deploymentCreateSchema,
  deploymentDeletedSchema,
  deploymentIdPathSchema,
  deploymentListQuerySchema,
  deploymentListSchema,
  deploymentSchema,
  deploymentUpdateSchema,
} from './schemas.js';
import { DeploymentService, presentDeployment } from './service.js';

const SCOPE_NOTE = 'A workspace key sees the deployments its workspace may use and changes only those assigned to it; others are a 404.';

/**
 * Deployments (organisation level): `POST|GET /v1/deployments`, `GET|PATCH|PUT|DELETE /v1/deployments/{deploymentId}`
 * (id or slug). Scopes `deployments:create|read|update|delete|list`; every mutation is audited under the workspace
 * the deployment is assigned to (the caller's for organisation-wide ones).
 */
export const deploymentResource = defineResource({
  kind: 'deployment',
  path: '/v1/deployments',
  tag: 'Deployments',
  scopes: { read: 'deployments:read', create: 'deployments:create', update: 'deployments:update', delete: 'deployments:delete' },
  workspace: 'organisation',
  updateMethods: ['PATCH', 'PUT'],
  schemas: {
    create: deploymentCreateSchema,
    update: deploymentUpdateSchema,
    view: deploymentSchema,
    list: deploymentListSchema,
    deleted: deploymentDeletedSchema,
    idPath: deploymentIdPathSchema,
    listQuery: deploymentListQuerySchema,
  },
  service: () => new DeploymentService(),
  present: presentDeployment,
  listFilter: ({ limit: _limit, cursor: _cursor, ...query }) => validate(deploymentListQuerySchema.pick({ type: true, workspace_id: true }), query),
  audit: {
    workspaceOf: (record, at) => record.workspace_id ?? at.workspaceId,
    created: (record) => ({ name: record.name, slug: record.slug, type: record.type, config: record.config.kind }),
    deleted: (record) => ({ name: record.name, slug: record.slug }),
  },
  errors: { conflict: true },
  docs: {
    create: {
      summary: 'Create a deployment',
      description: 'A named config that gateway requests select with x-gw-deployment: <slug>. The config is inline (checked like x-gw-config) or a saved config id with an optional version.',
    },
    list: { summary: 'List deployments', description: `Newest first, optionally by type. ${SCOPE_NOTE}`, scopes: ['deployments:list', 'deployments:read'] },
    get: { summary: 'Get a deployment', description: SCOPE_NOTE },
    update: { summary: 'Update a deployment', description: `Fields sent replace the stored ones; restricted_to_workspaces: [] lifts a restriction. ${SCOPE_NOTE}` },
    delete: { summary: 'Delete a deployment' },
  },
});
