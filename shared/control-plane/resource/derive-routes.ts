import type { z } from 'zod';
import { jsonResponse } from '../../http/types.js';
import type { Principal } from '../../auth/principal.js';
import type { Scope } from '../../auth/scopes.js';
import { audited } from '../audit.js';
import { notFound, requireListScope, requireOrganisationAdmin, requireScope } from '../authorization.js';
import { gatedBy } from '../feature-flags.js';
import type { ControlPlaneRequest, RouteRegistrar } from '../handler-types.js';
import { readPageRequest } from '../pagination.js';
import { parseJsonBody } from '../../http/json-body.js';
import { targetWorkspace } from '../workspaces/access.js';
import { registerWorkspaceContentProbe } from '../workspaces/contents.js';
import {
  flagsOf,
  idParamOf,
  namesOf,
  operationsOf,
  scopesOf,
  type CrudService,
  type ResourceDefinition,
  type ResourceHelpers,
  type ResourceOperation,
  type ResourceScope,
} from './define-resource.js';
import { parseSecretBearingBody } from './secret-bearing-body.js';

/**
 * Registers a resource's routes from its definition: `POST|GET <path>` and `GET|PATCH|DELETE <path>/{id}` (PUT too
 * where the definition says so), then its hand-written extra routes. Every route checks its scope first, then
 * finds the workspace it acts on (a list validates its filter before), then reads the id and the body; every
 * mutation is audited, success or failure.
 */
export function registerResource<
  Stored extends { id: string },
  Create extends z.ZodType,
  Update extends z.ZodType,
  Filter,
  Service extends CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter>,
>(register: RouteRegistrar, definition: ResourceDefinition<Stored, Create, Update, Filter, Service>): void {
  const { kind, path, schemas, present, audit } = definition;
  const scopes = scopesOf(definition);
  const idParam = idParamOf(definition);
  const itemPath = `${path}/{${idParam}}`;
  const flags = flagsOf(definition);
  const route: RouteRegistrar = flags.length > 0 ? (method, pattern, handler) => register(method, pattern, gatedBy(flags, handler)) : register;
  const has = new Set(operationsOf(definition));
  const parseBody = definition.secretBearingBody ? parseSecretBearingBody : parseJsonBody;

  let built: Service | undefined;
  // Built on first use: settings (and so stores and secret stores) are read only once a request arrives.
  const service = () => (built ??= definition.service());
  const helpers: ResourceHelpers<Service> = {
    service,
    scopeOf: (call, bodyWorkspace) => scopeOf(definition.workspace, call, bodyWorkspace),
    checkedId: (call) => {
      const id = call.params[idParam];
      if (definition.idPattern && !definition.idPattern.test(id)) throw notFound(namesOf(definition).singular, id.slice(0, 128));
      return id;
    },
  };
  const requireWrite = (principal: Principal, scope: Scope, operation?: 'create' | 'update' | 'delete') => {
    requireScope(principal, scope);
    const admin = definition.writesNeedOrganisationAdmin;
    const named = typeof admin === 'string' ? admin : operation && admin?.[operation];
    if (named) requireOrganisationAdmin(principal, named);
  };
  // What an audit event of a call on one record knows before the call runs (the target workspace, if it names one).
  const onRecord = (call: ControlPlaneRequest, verb: string) => ({
    action: `${kind}.${verb}`,
    resource_type: kind,
    resource_id: call.params[idParam],
    ...(audit.failureWorkspace ? { workspace_id: audit.failureWorkspace(call) } : {}),
  });
  // The definition's own check of an operation, where it has one, replaces the derived one.
  const authorize = (operation: ResourceOperation, principal: Principal, derived: () => void) => {
    const own = definition.authorize?.[operation];
    if (own) own(principal);
    else derived();
  };
  const auditWorkspace = (stored: Stored, at: ResourceScope) => (audit.workspaceOf ? audit.workspaceOf(stored, at) : at.workspaceId);
  if (definition.workspaceContent) registerWorkspaceContentProbe(definition.workspaceContent.name, definition.workspaceContent.hasAny);

  if (has.has('create')) {
    route('POST', path, (call) =>
      audited(call, { action: `${kind}.create`, resource_type: kind }, async () => {
        authorize('create', call.principal, () => requireWrite(call.principal, scopes.create, 'create'));
        let at: ResourceScope;
        let body: z.infer<Create>;
        if (definition.workspace === 'query') {
          at = await helpers.scopeOf(call);
          body = parseBody(call.request, schemas.create);
        } else {
          body = parseBody(call.request, schemas.create);
          at = await helpers.scopeOf(call, definition.workspace === 'query-or-body' ? (body as { workspace_id?: string }).workspace_id : undefined);
        }
        const stored = await service().create(at, body);
        const created = (definition.presentCreated ?? present)(stored);
        return { value: jsonResponse(201, created), resource_id: stored.id, workspace_id: auditWorkspace(stored, at), details: audit.created(stored) };
      }),
    );
  }

  if (has.has('list')) {
    route('GET', path, async (call) => {
      authorize('list', call.principal, () => requireListScope(call.principal, scopes.read));
      const filter = definition.listFilter ? definition.listFilter(call.request.query, call) : (undefined as Filter);
      const at = await helpers.scopeOf(call);
      return jsonResponse(200, await service().list(at, readPageRequest(call.request), filter));
    });
  }

  if (has.has('get')) {
    route('GET', itemPath, async (call) => {
      authorize('get', call.principal, () => requireScope(call.principal, scopes.read));
      const at = await helpers.scopeOf(call);
      return jsonResponse(200, present(await service().get(at, helpers.checkedId(call), call.request.query)));
    });
  }

  for (const method of has.has('update') ? (definition.updateMethods ?? ['PATCH']) : []) {
    route(method, itemPath, (call) =>
      audited(call, onRecord(call, 'update'), async () => {
        authorize('update', call.principal, () => requireWrite(call.principal, scopes.update, 'update'));
        const at = await helpers.scopeOf(call);
        const id = helpers.checkedId(call);
        const body = parseBody(call.request, schemas.update);
        const stored = await service().update(at, id, body);
        const details = audit.updated ? audit.updated(body, stored) : { changed: Object.keys(body as object).sort() };
        return { value: jsonResponse(200, present(stored)), resource_id: stored.id, workspace_id: auditWorkspace(stored, at), details };
      }),
    );
  }

  if (has.has('delete')) {
    route('DELETE', itemPath, (call) =>
      audited(call, onRecord(call, 'delete'), async () => {
        authorize('delete', call.principal, () => requireWrite(call.principal, scopes.delete, 'delete'));
        const at = await helpers.scopeOf(call);
        const remove = service().delete?.bind(service());
        // A definition whose operations include delete must give its service one (resource-definitions.test.ts).
        if (!remove) throw new Error(`the ${kind} service has no delete, yet its definition derives one`);
        const deleted = await remove(at, helpers.checkedId(call));
        return {
          value: jsonResponse(200, { object: kind, id: deleted.id, deleted: true }),
          resource_id: deleted.id,
          workspace_id: auditWorkspace(deleted, at),
          details: audit.deleted?.(deleted),
        };
      }),
    );
  }

  for (const action of definition.actions ?? []) {
    route('POST', `${itemPath}/${action.verb}`, (call) =>
      audited(call, onRecord(call, action.verb), async () => {
        requireWrite(call.principal, action.scope);
        const at = await helpers.scopeOf(call);
        const { stored, details } = await action.run(service(), at, helpers.checkedId(call), call);
        return { value: jsonResponse(200, (action.present ?? present)(stored)), resource_id: stored.id, workspace_id: auditWorkspace(stored, at), details };
      }),
    );
  }

  definition.extraRoutes?.(route, helpers);
}

/** The workspace a call acts on (see WorkspaceSource); organisation resources act as the caller's workspace. */
async function scopeOf(source: ResourceDefinition['workspace'], call: ControlPlaneRequest, bodyWorkspace?: string): Promise<ResourceScope> {
  const { principal } = call;
  if (source === 'organisation') return { principal, workspaceId: principal.workspaceId };
  return { principal, workspaceId: (await targetWorkspace(principal, bodyWorkspace ?? call.request.query.workspace_id)).id };
}
