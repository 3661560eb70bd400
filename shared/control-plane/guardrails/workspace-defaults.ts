import type { Principal } from '../../auth/principal.js';
import { forgetWorkspaceGuardrails } from '../../gateway/guardrail-resolver.js';
import { requireScope } from '../authorization.js';
import { requireFeature } from '../feature-flags.js';
import { checkWorkspaceDefaultGuardrails } from './references.js';

/**
 * Checks a workspace update's `default_guardrails` before it is stored: guardrails are a control an admin sets,
 * so changing them needs `guardrails:write` besides `workspaces:write`, and every id must be a guardrail of that
 * workspace (400 AB0118). Returns the list without repeats.
 */
export async function checkDefaultGuardrailsChange(principal: Principal, workspaceId: string, references: readonly string[]): Promise<string[]> {
  requireFeature('GUARDRAILS_ENABLED');
  requireScope(principal, 'guardrails:write');
  const unique = [...new Set(references)];
  await checkWorkspaceDefaultGuardrails(workspaceId, unique);
  return unique;
}

/** After the update: the gateway of this process stops using the old defaults at once (elsewhere within 30 s). */
export function defaultGuardrailsChanged(workspaceId: string): void {
  forgetWorkspaceGuardrails(workspaceId);
}
