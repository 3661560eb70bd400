import { settings } from '../settings.js';
import { enforcementSnapshots } from './enforcement/snapshot-cache.js';
import { guardrailResolver } from './guardrail-resolver.js';

/**
 * Starts reading what the pipeline will ask of the caller's workspace as soon as the key names it: its default
 * guardrails (the guardrail stage) and its policies and budget (admission). In a fresh process (a Lambda cold
 * start) the guardrail stage would read the workspace, then admission would read policies and budget, one round
 * trip after the other; started here, both run beside the body's parsing and each other, and the stages join the
 * same in-flight loads. A workspace the caches already hold costs two map lookups and starts nothing (a stale
 * entry is refreshed by the stage that uses it, as before).
 */
export function prefetchWorkspaceState(workspaceId: string): void {
  const { GUARDRAILS_ENABLED, POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  if (GUARDRAILS_ENABLED) guardrailResolver().prefetchWorkspaceDefaults(workspaceId);
  if (POLICY_ENABLED || USAGE_LIMITS_ENABLED) enforcementSnapshots().prefetch(workspaceId);
}
