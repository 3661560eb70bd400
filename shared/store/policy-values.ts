/**
 * The values a policy's fields take, free of any store or server code: the API's schemas
 * (shared/control-plane/policies/schemas.ts) build on them, and the console bundles those schemas to check a policy
 * in the browser before it is sent.
 */
export const POLICY_KINDS = ['rate_limit', 'usage_limit'] as const;
export const POLICY_TYPES = ['requests', 'tokens'] as const;
export const POLICY_UNITS = ['rpm', 'rph', 'rpd'] as const;
export const CREDIT_LIMIT_TYPES = ['cost', 'tokens'] as const;
export const PERIODIC_RESETS = ['none', 'weekly', 'monthly'] as const;
export const POLICY_STATUSES = ['active', 'archived'] as const;
/** `reserve`: admission reserves the estimated maximum (exact under concurrency); `soft`: estimate-free check. */
export const POLICY_ENFORCEMENTS = ['reserve', 'soft'] as const;

export type PolicyKind = (typeof POLICY_KINDS)[number];
export type PolicyType = (typeof POLICY_TYPES)[number];
export type PolicyUnit = (typeof POLICY_UNITS)[number];
export type CreditLimitType = (typeof CREDIT_LIMIT_TYPES)[number];
export type PeriodicReset = (typeof PERIODIC_RESETS)[number];
export type PolicyStatus = (typeof POLICY_STATUSES)[number];
export type PolicyEnforcement = (typeof POLICY_ENFORCEMENTS)[number];
