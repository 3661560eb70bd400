import { GatewayError } from '../http/errors.js';
import { settings } from '../settings.js';
import type { ResourceHandler } from './handler-types.js';

/** The spec's self-hosting feature flags (shared/settings.ts): on unless set to `OFF`. */
export const FEATURE_FLAGS = [
  'GUARDRAILS_ENABLED',
  'API_ACCESS_ENABLED',
  'DATA_EXPORTS_ENABLED',
  'USAGE_LIMITS_ENABLED',
  'AUDIT_LOGS_ENABLED',
  'SCIM_ENABLED',
  'POLICY_ENABLED',
] as const;

export type FeatureFlag = (typeof FEATURE_FLAGS)[number];

export function isFeatureEnabled(flag: FeatureFlag): boolean {
  return settings()[flag];
}

/**
 * Throws the 404 of a switched-off feature. 404 rather than 403: on a deployment without the feature its routes
 * do not exist, and the message names the flag so an operator knows what to turn on.
 */
export function requireFeature(flag: FeatureFlag): void {
  if (isFeatureEnabled(flag)) return;
  throw new GatewayError(404, 'feature_disabled', `This feature is disabled on this deployment: set ${flag} (currently OFF) to enable it`);
}

/**
 * Wraps a route handler so it answers the `feature_disabled` 404 while a flag is OFF (checked per request, after
 * authentication, before the handler reads anything). With several flags, every one must be on.
 */
export function gatedBy(flags: FeatureFlag | readonly FeatureFlag[], handler: ResourceHandler): ResourceHandler {
  const required = typeof flags === 'string' ? [flags] : [...flags];
  return async (call) => {
    for (const flag of required) requireFeature(flag);
    return handler(call);
  };
}
