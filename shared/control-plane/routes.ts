import type { ResourceHandler } from './app.js';

export type RouteRegistrar = (method: string, pattern: string, handler: ResourceHandler) => void;

/** The control-plane resources. Each resource module adds its routes here. */
export function registerResourceRoutes(_register: RouteRegistrar): void {
  // Resources (workspaces, API keys, virtual keys, configs, prompts, policies, audit logs) register here.
}
