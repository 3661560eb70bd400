/**
 * Scopes an API key can carry, each with what it allows (docs/control-plane/identities.md lists them).
 * Organisation admin keys hold every scope implicitly. List routes accept `<resource>:read` or `<resource>:list`.
 */
export const SCOPE_DESCRIPTIONS = {
  'completions:write': 'Call the gateway: chat completions, completions, embeddings',
  'prompts:read': 'Read prompts and their versions (includes listing them)',
  'prompts:list': 'List prompts',
  'prompts:write': 'Create, update and delete prompts',
  'prompts:render': 'Render a prompt with variables',
  'configs:read': 'Read saved configs (includes listing them)',
  'configs:list': 'List saved configs',
  'configs:write': 'Create, update and delete saved configs',
  'guardrails:read': 'Read guardrails and their versions (includes listing them)',
  'guardrails:list': 'List guardrails',
  'guardrails:write': 'Create, update and delete guardrails',
  'virtual_keys:read': 'Read virtual-key metadata (includes listing them; never the credential)',
  'virtual_keys:list': 'List virtual keys',
  'virtual_keys:write': 'Create, update and delete virtual keys',
  'policies:read': 'Read usage and rate-limit policies (includes listing them)',
  'policies:list': 'List usage and rate-limit policies',
  'policies:write': 'Create, update and delete usage and rate-limit policies',
  'workspaces:read': 'Read the workspace(s) the caller may see (includes listing them)',
  'workspaces:list': 'List the workspace(s) the caller may see',
  'workspaces:write': 'Update a workspace (creating and deleting workspaces needs an admin key)',
  'api_keys:read': 'Read API keys of the workspace, masked (includes listing them)',
  'api_keys:list': 'List API keys of the workspace, masked',
  'api_keys:write': 'Create, update, rotate and revoke API keys of the workspace',
  'users:read': 'Read users of the organisation (admin keys only)',
  'users:list': 'List users of the organisation (admin keys only)',
  'users:write': 'Invite, update and remove users (admin keys only)',
  'audit_logs:read': 'Read the audit log (includes listing it)',
  'audit_logs:list': 'List the audit log',
  'logs:read': 'Read request logs, traces and spans',
  'deployments:create': 'Create deployments',
  'deployments:read': 'Read deployments',
  'deployments:update': 'Update deployments',
  'deployments:delete': 'Delete deployments',
  'deployments:list': 'List deployments',
  'mcp_servers:read': 'Read registered MCP servers and their metadata (includes listing them; never their credentials)',
  'mcp_servers:list': 'List registered MCP servers',
  'mcp_servers:write': 'Register, update and delete MCP servers',
  'mcp:invoke': 'Use registered MCP servers through the MCP gateway (/v1/mcp/{server})',
  'integrations:read': 'Read organisation integrations (provider credentials are never returned; includes listing them)',
  'integrations:list': 'List organisation integrations',
  'integrations:write': 'Create, update and delete integrations (admin keys only)',
  'providers:read': 'Read the workspace providers (enabled integrations; includes listing them)',
  'providers:list': 'List the workspace providers',
  'providers:write': 'Enable, update and disable workspace providers',
  scim: 'Provision users and groups through SCIM 2.0 (/v1/scim/v2)',
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;

export const SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as [Scope, ...Scope[]];

/** The only scopes a JWT may carry (spec): `read` and `list`. Anything else in a token is ignored. */
export const JWT_SCOPES = ['read', 'list'] as const;
export type JwtScope = (typeof JWT_SCOPES)[number];

/** What a JWT scope grants: `read` every `<resource>:read`, `list` every `<resource>:list`; never a write. */
export function scopesGrantedByJwt(jwtScopes: Iterable<string>): Set<Scope> {
  const granted = new Set<Scope>();
  for (const jwtScope of jwtScopes) {
    if (!(JWT_SCOPES as readonly string[]).includes(jwtScope)) continue;
    for (const scope of SCOPES) {
      if (scope.endsWith(`:${jwtScope}`)) granted.add(scope);
    }
  }
  return granted;
}

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPE_DESCRIPTIONS, value);
}

/** The `<resource>:list` scope that goes with a `<resource>:read` scope, when there is one. */
export function listScopeOf(readScope: Scope): Scope | undefined {
  const candidate = readScope.replace(/:read$/, ':list');
  return candidate !== readScope && isScope(candidate) ? candidate : undefined;
}
