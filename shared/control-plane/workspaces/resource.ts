import { jsonResponse } from '../../http/types.js';
import { audited } from '../audit.js';
import { requireOrganisationAdmin, requireScope } from '../authorization.js';
import { defineResource } from '../resource/define-resource.js';
import { resourceIdPathSchema } from '../resource/schema-helpers.js';
import { validate } from '../../http/json-body.js';
import { presentWorkspace } from './present.js';
import { workspaceCreateSchema, workspaceDeleteQuerySchema, workspaceListQuerySchema, workspaceSchema, workspaceUpdateSchema } from './schemas.js';
import { WorkspaceService } from './service.js';

const ITEM_PATH = '/v1/workspaces/{id}';

/**
 * Workspaces: `POST|GET /v1/workspaces`, `GET|PATCH /v1/workspaces/{id}` (id or slug) and, by hand,
 * `DELETE /v1/workspaces/{id}` (`?force=true` empties a non-empty workspace; answers the keys it revoked). Creating
 * and deleting need an organisation admin key; a workspace key sees and changes only its own workspace, and not
 * the limits its admins set. Every change is filed under the workspace itself. Not documented in detail yet.
 */
export const workspaceResource = defineResource({
  kind: 'workspace',
  path: '/v1/workspaces',
  tag: 'Workspaces',
  writesNeedOrganisationAdmin: { create: 'Creating a workspace' },
  // A workspace is the organisation's: the service decides which ones the caller sees.
  workspace: 'organisation',
  undocumented: true,
  operations: ['create', 'list', 'get', 'update'],
  schemas: {
    create: workspaceCreateSchema,
    update: workspaceUpdateSchema,
    view: workspaceSchema,
    idPath: resourceIdPathSchema('id', 'The workspace id or slug.'),
    listQuery: workspaceListQuerySchema,
  },
  service: () => new WorkspaceService(),
  present: presentWorkspace,
  listFilter: (query) => {
    validate(workspaceListQuerySchema, query);
    return undefined;
  },
  audit: {
    workspaceOf: (workspace) => workspace.id,
    failureWorkspace: (call) => call.params.id,
    created: (workspace) => ({ name: workspace.name, slug: workspace.slug }),
    updated: (body) => ({ changed: Object.keys(body), budget: body.budget, api_key_settings: body.api_key_settings }),
  },
  docs: {},
  extraRoutes: (register, { service }) => {
    // Deleting takes ?force and answers what it revoked: not the derived delete.
    register('DELETE', ITEM_PATH, (call) =>
      audited(call, { action: 'workspace.delete', resource_type: 'workspace', resource_id: call.params.id, workspace_id: call.params.id }, async () => {
        requireScope(call.principal, 'workspaces:write');
        requireOrganisationAdmin(call.principal, 'Deleting a workspace');
        const { force } = validate(workspaceDeleteQuerySchema, call.request.query);
        const { workspace, contents, revoked } = await service().remove(call.principal, call.params.id, force === 'true');
        return {
          value: jsonResponse(200, { object: 'workspace' as const, id: workspace.id, deleted: true as const, revoked_api_keys: revoked }),
          resource_id: workspace.id,
          workspace_id: workspace.id,
          details: { force: force === 'true', contents, revoked_api_keys: revoked.length },
        };
      }),
    );
  },
});
