import * as z from 'zod';
import { allowedCustomHostsSchema } from './allowed-custom-hosts.js';
import { guardrailReferenceListSchema } from '../../guardrails/schemas.js';
import { MAX_ID_CHARS } from '../../http/ids.js';
import { MAX_CACHE_MAX_AGE_SECONDS, MAX_RETRY_ATTEMPTS, MAX_REQUEST_TIMEOUT_MS, MAX_TARGETS_PER_LEVEL } from './limits.js';

/**
 * The config schema: the single source of truth for inline `x-gw-config` objects and saved configs.
 * TypeScript types and docs/openapi.yaml derive from it. Objects are strict: an unknown field is an error
 * (AB0102), never silently ignored. Loaded by the first request that carries a config (resolve-config.ts), so a
 * plain request's cold start does not build it.
 */

const statusCodes = z.array(z.int().min(100).max(599)).min(1);

export const retrySchema = z.strictObject({
  attempts: z.int().min(0).max(MAX_RETRY_ATTEMPTS),
  on_status_codes: statusCodes.optional(),
  use_retry_after_header: z.boolean().optional(),
});

/** The embeddings call of the semantic cache; defaults to the target's own provider and credentials. */
export const cacheEmbeddingsSchema = z.strictObject({
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  api_key: z.string().min(1).optional(),
  virtual_key: z.string().min(1).max(MAX_ID_CHARS).optional(),
  custom_host: z.string().min(1).optional(),
});

export const cacheSchema = z.strictObject({
  mode: z.enum(['simple', 'semantic']),
  max_age: z.int().min(1).max(MAX_CACHE_MAX_AGE_SECONDS).optional(),
  /** Cosine similarity a semantic hit needs (default 0.95). */
  similarity_threshold: z.number().gt(0).max(1).optional(),
  embeddings: cacheEmbeddingsSchema.optional(),
});

/** A conditional-routing query: `{"metadata._user": {"$eq": "alice"}}`, combinable with `$and` / `$or`. */
export type ConditionQuery = { [field: string]: unknown };

export const conditionSchema = z.strictObject({
  query: z.record(z.string(), z.unknown()),
  then: z.string().min(1),
});

export const strategySchema = z.strictObject({
  mode: z.enum(['single', 'fallback', 'loadbalance', 'conditional']),
  on_status_codes: statusCodes.optional(),
  conditions: z.array(conditionSchema).optional(),
  default: z.string().min(1).optional(),
});

/** Provider and request settings a target (and the config root) may carry; children inherit them. */
const targetSettingsShape = {
  name: z.string().min(1).max(255).optional(),
  provider: z.string().min(1).optional(),
  api_key: z.string().min(1).optional(),
  virtual_key: z.string().min(1).max(MAX_ID_CHARS).optional(),
  custom_host: z.string().min(1).optional(),
  weight: z.number().min(0).optional(),
  override_params: z.record(z.string(), z.unknown()).optional(),
  retry: retrySchema.optional(),
  request_timeout: z.int().min(1).max(MAX_REQUEST_TIMEOUT_MS).optional(),
  cache: cacheSchema.optional(),
  forward_headers: z.array(z.string().min(1)).optional(),
  azure_resource_name: z.string().min(1).optional(),
  azure_deployment_id: z.string().min(1).optional(),
  azure_api_version: z.string().min(1).optional(),
  azure_model_name: z.string().min(1).optional(),
  vertex_project_id: z.string().min(1).optional(),
  vertex_region: z.string().min(1).optional(),
  vertex_service_account_json: z.string().min(1).optional(),
  aws_access_key_id: z.string().min(1).optional(),
  aws_secret_access_key: z.string().min(1).optional(),
  aws_session_token: z.string().min(1).optional(),
  aws_region: z.string().min(1).optional(),
  anthropic_beta: z.string().min(1).optional(),
  anthropic_version: z.string().min(1).optional(),
  /** Guardrail ids (`grd-…`, optionally `@<version>`) run before routing; a node adds to its ancestors' (docs/guardrails.md). */
  input_guardrails: guardrailReferenceListSchema.optional(),
};

export interface TargetConfig {
  name?: string;
  provider?: string;
  api_key?: string;
  virtual_key?: string;
  custom_host?: string;
  weight?: number;
  override_params?: Record<string, unknown>;
  retry?: z.infer<typeof retrySchema>;
  request_timeout?: number;
  cache?: z.infer<typeof cacheSchema>;
  forward_headers?: string[];
  azure_resource_name?: string;
  azure_deployment_id?: string;
  azure_api_version?: string;
  azure_model_name?: string;
  vertex_project_id?: string;
  vertex_region?: string;
  vertex_service_account_json?: string;
  aws_access_key_id?: string;
  aws_secret_access_key?: string;
  aws_session_token?: string;
  aws_region?: string;
  anthropic_beta?: string;
  anthropic_version?: string;
  input_guardrails?: string[];
  strategy?: z.infer<typeof strategySchema>;
  targets?: TargetConfig[];
}

export const targetSchema: z.ZodType<TargetConfig> = z.lazy(() =>
  z.strictObject({
    ...targetSettingsShape,
    strategy: strategySchema.optional(),
    targets: z.array(targetSchema).min(1).max(MAX_TARGETS_PER_LEVEL).optional(),
  }),
);

/**
 * A whole config: the root is a target like any other (a leaf, or a strategy over targets), plus the settings
 * only a whole config has: `allowed_custom_hosts`, which only a stored config (saved config, deployment) uses.
 */
export type GatewayConfig = TargetConfig & { allowed_custom_hosts?: string[] };
export const configSchema: z.ZodType<GatewayConfig> = z.lazy(() =>
  z.strictObject({
    ...targetSettingsShape,
    strategy: strategySchema.optional(),
    targets: z.array(targetSchema).min(1).max(MAX_TARGETS_PER_LEVEL).optional(),
    allowed_custom_hosts: allowedCustomHostsSchema.optional(),
  }),
);
export type RetryConfig = z.infer<typeof retrySchema>;
export type CacheConfig = z.infer<typeof cacheSchema>;
export type StrategyConfig = z.infer<typeof strategySchema>;
