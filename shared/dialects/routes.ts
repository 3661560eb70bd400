import type { Router } from '../http/router.js';
import type { InferenceDependencies } from '../gateway/inference.js';
import { registerMessagesRoutes } from './anthropic-messages/routes.js';
import { registerResponsesRoutes } from './responses/routes.js';

/** The routes of the inbound dialects (Responses API, Anthropic Messages API). */
export function registerDialectRoutes(router: Router, deps: InferenceDependencies): void {
  registerResponsesRoutes(router, deps);
  registerMessagesRoutes(router, deps);
}

