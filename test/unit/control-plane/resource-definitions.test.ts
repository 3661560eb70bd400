import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { registerResourceRoutes } from '../../../shared/control-plane/routes.js';
import { apiKeyResource } from '../../../shared/control-plane/api-keys/resource.js';
import { deploymentResource } from '../../../shared/control-plane/deployments/resource.js';
import { integrationResource } from '../../../shared/control-plane/integrations/resource.js';
import { mcpServerResource } from '../../../shared/control-plane/mcp-servers/resource.js';
import { rateLimitPolicyResource, usageLimitPolicyResource } from '../../../shared/control-plane/policies/resource.js';
import { providerResource } from '../../../shared/control-plane/providers/resource.js';
import { isResourceDefinition, namesOf, readWriteScopes, scopesOf, type CrudService, type ResourceDefinition } from '../../../shared/control-plane/resource/define-resource.js';
import { resourceOperations } from '../../../shared/control-plane/resource/derive-openapi.js';
import { registerResource } from '../../../shared/control-plane/resource/derive-routes.js';
import { workspaceResource } from '../../../shared/control-plane/workspaces/resource.js';
import { userResource } from '../../../shared/control-plane/users/resource.js';
import { virtualKeyResource } from '../../../shared/control-plane/virtual-keys/resource.js';
import { configResource } from '../../../shared/control-plane/configs/resource.js';
import { guardrailResource } from '../../../shared/control-plane/guardrails/resource.js';
import { promptResource } from '../../../shared/control-plane/prompts/resource.js';
import { operationsOf } from '../../../shared/control-plane/resource/define-resource.js';

/** What a definition registers and what it documents, side by side (generic, so each definition keeps its types). */
function routesAndDocs<Stored extends { id: string }, Create extends z.ZodType, Update extends z.ZodType, Filter, Service extends CrudService<Stored, z.infer<Create>, z.infer<Update>, Filter>>(
  definition: ResourceDefinition<Stored, Create, Update, Filter, Service>,
) {
  const registered: string[] = [];
  registerResource((method, pattern) => registered.push(`${method.toLowerCase()} ${pattern}`), definition);
  const operations = resourceOperations(definition);
  return {
    registered: registered.sort(),
    documented: operations.map((operation) => `${operation.method} ${operation.path}`).sort(),
    writeScopes: operations.filter((operation) => operation.method !== 'get').flatMap((operation) => operation.scopes ?? []),
    definedScopes: Object.values(scopesOf(definition)) as string[],
    undocumented: definition.undocumented === true,
    path: definition.path,
    marked: isResourceDefinition(definition),
    derivesDelete: operationsOf(definition).includes('delete'),
    // The services are built lazily by the routes; building one reads no store.
    serviceDeletes: typeof definition.service().delete === 'function',
  };
}

const DEFINITIONS = [
  ['virtual keys', () => routesAndDocs(virtualKeyResource)],
  ['deployments', () => routesAndDocs(deploymentResource)],
  ['integrations', () => routesAndDocs(integrationResource)],
  ['MCP servers', () => routesAndDocs(mcpServerResource)],
  ['providers', () => routesAndDocs(providerResource)],
  ['rate-limit policies', () => routesAndDocs(rateLimitPolicyResource)],
  ['usage-limit policies', () => routesAndDocs(usageLimitPolicyResource)],
  ['API keys', () => routesAndDocs(apiKeyResource)],
  ['workspaces', () => routesAndDocs(workspaceResource)],
  ['users', () => routesAndDocs(userResource)],
  ['configs', () => routesAndDocs(configResource)],
  ['guardrails', () => routesAndDocs(guardrailResource)],
] as const;
// Prompts document their version, label and render routes in a hand-written openapi.ts beside the definition.
const EVERY_DEFINITION = [...DEFINITIONS, ['prompts', () => routesAndDocs(promptResource)]] as const;

describe('control-plane resource definitions', () => {
  it.each(DEFINITIONS)('%s documents exactly the routes it registers, with the scopes they check', (_name, derive) => {
    const { registered, documented, writeScopes, definedScopes, undocumented } = derive();
    // An undocumented resource's routes are listed from the router (x-gw-undocumented), not from its definition.
    expect(documented).toEqual(undocumented ? [] : registered);
    for (const scope of writeScopes) expect(definedScopes).toContain(scope);
  });

  it.each(EVERY_DEFINITION)('%s gives its service a delete wherever it derives a DELETE route', (_name, derive) => {
    const { derivesDelete, serviceDeletes } = derive();
    expect(serviceDeletes || !derivesDelete).toBe(true);
  });

  it('every definition is registered on the control plane’s one router', () => {
    const registered = new Set<string>();
    registerResourceRoutes((method, pattern) => registered.add(`${method} ${pattern}`));
    for (const [, derive] of DEFINITIONS) {
      const { registered: own, marked } = derive();
      expect(marked).toBe(true);
      for (const route of own) expect(registered.has(route.replace(/^\w+/, (method) => method.toUpperCase())), route).toBe(true);
    }
  });

  it('derives names from the kind and the usual read/write scopes from a prefix', () => {
    expect(namesOf({ kind: 'virtual_key' })).toEqual({ singular: 'virtual key', plural: 'virtual keys', operation: 'VirtualKey', operations: 'VirtualKeys' });
    expect(namesOf({ kind: 'mcp_server', names: { singular: 'MCP server', plural: 'MCP servers' } })).toMatchObject({ singular: 'MCP server', operation: 'McpServer' });
    expect(scopesOf({ kind: 'api_key' })).toEqual(readWriteScopes('api_keys'));
    expect(() => scopesOf({ kind: 'policy' })).toThrow(/give the definition its scopes/);
    expect(readWriteScopes('virtual_keys')).toEqual({ read: 'virtual_keys:read', create: 'virtual_keys:write', update: 'virtual_keys:write', delete: 'virtual_keys:write' });
  });
});
