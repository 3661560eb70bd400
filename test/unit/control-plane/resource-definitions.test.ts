import { describe, expect, it } from 'vitest';
import { registerResourceRoutes } from '../../../shared/control-plane/routes.js';
import { deploymentResource } from '../../../shared/control-plane/deployments/resource.js';
import { integrationResource } from '../../../shared/control-plane/integrations/resource.js';
import { mcpServerResource } from '../../../shared/control-plane/mcp-servers/resource.js';
import { providerResource } from '../../../shared/control-plane/providers/resource.js';
import { isResourceDefinition, namesOf, readWriteScopes } from '../../../shared/control-plane/resource/define-resource.js';
import { resourceOperations } from '../../../shared/control-plane/resource/derive-openapi.js';
import { registerResource } from '../../../shared/control-plane/resource/derive-routes.js';
import { virtualKeyResource } from '../../../shared/control-plane/virtual-keys/resource.js';

const DEFINITIONS = { virtualKeyResource, deploymentResource, integrationResource, mcpServerResource, providerResource };

describe('control-plane resource definitions', () => {
  it.each(Object.entries(DEFINITIONS))('%s documents exactly the routes it registers, with the scopes they check', (_name, definition) => {
    const registered: string[] = [];
    registerResource((method, pattern) => registered.push(`${method.toLowerCase()} ${pattern}`), definition);
    const operations = resourceOperations(definition);
    expect(operations.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(registered.sort());
    const writes = operations.filter((operation) => operation.method !== 'get');
    for (const operation of writes) expect(operation.scopes?.every((scope) => Object.values(definition.scopes).includes(scope as never))).toBe(true);
  });

  it('every definition is registered on the control plane’s one router', () => {
    const registered = new Set<string>();
    registerResourceRoutes((method, pattern) => registered.add(`${method} ${pattern}`));
    for (const definition of Object.values(DEFINITIONS)) {
      expect(isResourceDefinition(definition)).toBe(true);
      expect(registered.has(`POST ${definition.path}`)).toBe(true);
    }
  });

  it('derives names from the kind and the usual read/write scopes from a prefix', () => {
    expect(namesOf({ kind: 'virtual_key' })).toEqual({ singular: 'virtual key', plural: 'virtual keys', operation: 'VirtualKey', operations: 'VirtualKeys' });
    expect(namesOf({ kind: 'mcp_server', names: { singular: 'MCP server', plural: 'MCP servers' } })).toMatchObject({ singular: 'MCP server', operation: 'McpServer' });
    expect(readWriteScopes('virtual_keys')).toEqual({ read: 'virtual_keys:read', create: 'virtual_keys:write', update: 'virtual_keys:write', delete: 'virtual_keys:write' });
  });
});
