import { jsonResponse } from '../../http/types.js';
import { audited } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { readPageRequest } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody, validate } from '../validation.js';
import { deploymentCreateSchema, deploymentListQuerySchema, deploymentUpdateSchema } from './schemas.js';
import { DeploymentService, presentDeployment } from './service.js';

/**
 * Deployments: `POST|GET /v1/deployments`, `GET|PATCH|PUT|DELETE /v1/deployments/{deploymentId}` (id or slug).
 * Scopes `deployments:create|read|update|delete|list`; every mutation is audited.
 */
export function registerDeploymentRoutes(register: RouteRegistrar): void {
  let service: DeploymentService | undefined;
  const deployments = () => (service ??= new DeploymentService());

  register('POST', '/v1/deployments', (call) =>
    audited(call, { action: 'deployment.create', resource_type: 'deployment' }, async () => {
      requireScope(call.principal, 'deployments:create');
      const record = await deployments().create(call.principal, parseJsonBody(call.request, deploymentCreateSchema));
      return {
        value: jsonResponse(201, presentDeployment(record)),
        resource_id: record.id,
        workspace_id: record.workspace_id ?? call.principal.workspaceId,
        details: { name: record.name, slug: record.slug, type: record.type, config: record.config.kind },
      };
    }),
  );

  register('GET', '/v1/deployments', async (call) => {
    requireListScope(call.principal, 'deployments:read');
    const { limit: _limit, cursor: _cursor, ...query } = call.request.query;
    const filter = validate(deploymentListQuerySchema.pick({ type: true, workspace_id: true }), query);
    return jsonResponse(200, await deployments().list(call.principal, { type: filter.type, workspaceId: filter.workspace_id }, readPageRequest(call.request)));
  });

  register('GET', '/v1/deployments/{deploymentId}', async (call) => {
    requireScope(call.principal, 'deployments:read');
    return jsonResponse(200, presentDeployment(await deployments().get(call.principal, call.params.deploymentId)));
  });

  const update = (method: 'PATCH' | 'PUT') =>
    register(method, '/v1/deployments/{deploymentId}', (call) =>
      audited(call, { action: 'deployment.update', resource_type: 'deployment', resource_id: call.params.deploymentId }, async () => {
        requireScope(call.principal, 'deployments:update');
        const body = parseJsonBody(call.request, deploymentUpdateSchema);
        const record = await deployments().update(call.principal, call.params.deploymentId, body);
        return {
          value: jsonResponse(200, presentDeployment(record)),
          resource_id: record.id,
          workspace_id: record.workspace_id ?? call.principal.workspaceId,
          details: { changed: Object.keys(body).sort() },
        };
      }),
    );
  update('PATCH');
  update('PUT');

  register('DELETE', '/v1/deployments/{deploymentId}', (call) =>
    audited(call, { action: 'deployment.delete', resource_type: 'deployment', resource_id: call.params.deploymentId }, async () => {
      requireScope(call.principal, 'deployments:delete');
      const deleted = await deployments().delete(call.principal, call.params.deploymentId);
      return {
        value: jsonResponse(200, { object: 'deployment', id: deleted.id, deleted: true }),
        resource_id: deleted.id,
        workspace_id: deleted.workspace_id ?? call.principal.workspaceId,
        details: { name: deleted.name, slug: deleted.slug },
      };
    }),
  );
}
