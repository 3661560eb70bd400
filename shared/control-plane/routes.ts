import type { RouteRegistrar } from './handler-types.js';
import { configResource } from './configs/resource.js';
import { registerPolicyRoutes } from './policies/routes.js';
import { registerAuditLogRoutes } from './audit-logs/routes.js';
import { promptResource } from './prompts/resource.js';
import { guardrailResource } from './guardrails/resource.js';
import { registerModelCatalogRoutes } from './model-catalog/routes.js';
import { registerScimRoutes } from './scim/routes.js';
import { registerLogRoutes } from './logs/routes.js';
import { registerTraceRoutes } from './traces/routes.js';
import { registerAnalyticsRoutes } from './analytics/routes.js';
import { registerExportRoutes } from './exports/routes.js';
import { registerMeRoutes } from './me/routes.js';
import { registerResource } from './resource/derive-routes.js';
import { virtualKeyResource } from './virtual-keys/resource.js';
import { deploymentResource } from './deployments/resource.js';
import { integrationResource } from './integrations/resource.js';
import { mcpServerResource } from './mcp-servers/resource.js';
import { providerResource } from './providers/resource.js';
import { apiKeyResource } from './api-keys/resource.js';
import { workspaceResource } from './workspaces/resource.js';
import { userResource } from './users/resource.js';

/** The control-plane resources. Each resource module adds its routes here. */
export function registerResourceRoutes(register: RouteRegistrar): void {
  // Resources (workspaces, API keys, virtual keys, configs, prompts, policies, audit logs) register here.
  // The caller itself (the console reads what its key may do from here).
  registerMeRoutes(register);
  registerPolicyRoutes(register);
  registerResource(register, workspaceResource);
  registerResource(register, apiKeyResource);
  registerResource(register, userResource);
  registerAuditLogRoutes(register);
  registerResource(register, configResource);
  registerResource(register, virtualKeyResource);
  registerResource(register, promptResource);
  registerResource(register, guardrailResource);
  registerResource(register, mcpServerResource);
  registerModelCatalogRoutes(register);
  registerResource(register, deploymentResource);
  registerResource(register, integrationResource);
  registerResource(register, providerResource);
  registerScimRoutes(register);
  // Observability read side (docs/observability.md).
  registerLogRoutes(register);
  registerTraceRoutes(register);
  registerAnalyticsRoutes(register);
  registerExportRoutes(register);
}
