import { settings } from '../settings.js';
import { enforcementSnapshots } from './enforcement/snapshot-cache.js';
import { guardrailResolver } from './guardrail-resolver.js';

/**
 * Starts reading what the pipeline will ask of the caller's workspace as soon as the key names it: its default
 * guardrails (the guardrail stage) and its policies and budget (admission). Each is a stale-while-revalidate
 * cache, so once warm this is two map lookups; but in a fresh process (a Lambda cold start) the guardrail stage
 * would read the workspace, then admission would read policies and budget, one round trip after the other.
 * Started here, both run beside the body's parsing and each other, and the stages await the same in-flight
 * loads (the caches share one load per key). Failures are the stages' to report: they retry the load themselves.
 */
export function prefetchWorkspaceState(workspaceId: string): void {
  const { GUARDRAILS_ENABLED, POLICY_ENABLED, USAGE_LIMITS_ENABLED } = settings();
  const ignore = () => undefined;
  if (GUARDRAILS_ENABLED) guardrailResolver().workspaceDefaults(workspaceId).catch(ignore);
  if (POLICY_ENABLED || USAGE_LIMITS_ENABLED) enforcementSnapshots().get(workspaceId).catch(ignore);
}
