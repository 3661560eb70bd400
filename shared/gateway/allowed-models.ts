import { badRequest } from '../http/errors.js';
import type { RouteNode } from './config/target-tree.js';

/**
 * A stored credential's model allow list (a workspace provider's `models`) applies to the model each target
 * sends: the client's `model` with the target's override_params on top, as the provider receives it. Every
 * target that uses the credential is checked before anything is admitted or sent, so a config cannot reach a
 * model outside the list through a fallback either; a target that names another provider or a virtual key has
 * its own credential and no list (config/target-tree.ts drops it).
 */
export function checkAllowedModels(tree: RouteNode, body: Record<string, unknown>): void {
  if (tree.kind === 'strategy') {
    for (const child of tree.children) checkAllowedModels(child, body);
    return;
  }
  const allowed = tree.settings.allowedModels;
  if (!allowed) return;
  const overridden = Object.hasOwn(tree.settings.overrideParams, 'model');
  const model = overridden ? tree.settings.overrideParams.model : body.model;
  if (typeof model === 'string' && allowed.models.includes(model)) return;
  const shown = typeof model === 'string' ? model : '(none)';
  throw badRequest(
    'model_not_allowed',
    `Model '${shown}' is not allowed through ${allowed.source}${overridden ? ` (set by the override_params of ${tree.path})` : ''}; allowed models: ${allowed.models.join(', ')}`,
    overridden ? `${tree.path}.override_params.model` : 'model',
  );
}
