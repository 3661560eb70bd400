import { parseInlineConfig } from '../../../shared/gateway/config/parse-config.js';
import { readRequestOptions } from '../../../shared/gateway/request-options.js';
import { GatewayError } from '../../../shared/http/errors.js';
import { GwValidationError } from './errors.js';

/**
 * Every gateway parameter as a client parameter (camelCase), with the header it becomes. The spec's cloud
 * kind names (clouda = Azure OpenAI, cloudb = Vertex AI, cloudc = Bedrock) are accepted beside gw's own.
 */
export const PARAMETER_HEADERS = {
  apiKey: 'x-gw-api-key',
  provider: 'x-gw-provider',
  virtualKey: 'x-gw-virtual-key',
  config: 'x-gw-config',
  customHost: 'x-gw-custom-host',
  traceId: 'x-gw-trace-id',
  traceID: 'x-gw-trace-id',
  metadata: 'x-gw-metadata',
  cacheForceRefresh: 'x-gw-cache-force-refresh',
  cacheNamespace: 'x-gw-cache-namespace',
  requestTimeout: 'x-gw-request-timeout',
  forwardHeaders: 'x-gw-forward-headers',
  deployment: 'x-gw-deployment',
  dropUnsupportedParams: 'x-gw-drop-unsupported-params',
  anthropicBeta: 'anthropic-beta',
  azureResourceName: 'x-gw-azure-resource-name',
  azureDeploymentId: 'x-gw-azure-deployment-id',
  azureApiVersion: 'x-gw-azure-api-version',
  azureModelName: 'x-gw-azure-model-name',
  vertexProjectId: 'x-gw-vertex-project-id',
  vertexRegion: 'x-gw-vertex-region',
  vertexLlmRequestType: 'x-vertex-llm-request-type',
  awsAccessKeyId: 'x-gw-aws-access-key-id',
  awsSecretAccessKey: 'x-gw-aws-secret-access-key',
  awsSessionToken: 'x-gw-aws-session-token',
  awsRegion: 'x-gw-aws-region',
  cloudaResourceName: 'x-gw-clouda-resource-name',
  cloudaDeploymentId: 'x-gw-clouda-deployment-id',
  cloudaApiVersion: 'x-gw-clouda-api-version',
  cloudaModelName: 'x-gw-clouda-model-name',
  cloudbProjectId: 'x-gw-cloudb-project-id',
  cloudbRegion: 'x-gw-cloudb-region',
  cloudbLlmRequestType: 'x-cloudb-llm-request-type',
  cloudcAccessKeyId: 'x-gw-cloudc-access-key-id',
  cloudcSecretAccessKey: 'x-gw-cloudc-secret-access-key',
  cloudcSessionToken: 'x-gw-cloudc-session-token',
  cloudcRegion: 'x-gw-cloudc-region',
} as const;

type StringParameter = Exclude<keyof typeof PARAMETER_HEADERS, 'config' | 'metadata' | 'cacheForceRefresh' | 'requestTimeout' | 'forwardHeaders' | 'dropUnsupportedParams'>;

/** The gateway parameters. Any other key (`xMyHeader`) becomes a header of its own (`x-my-header`). */
export type GatewayParameters = { [K in StringParameter]?: string } & {
  /** A saved config id (`cfg-…`, `cfg-…@3`) or an inline config object, validated as the gateway does. */
  config?: string | Record<string, unknown>;
  metadata?: Record<string, string>;
  cacheForceRefresh?: boolean;
  /** Milliseconds for connect + first byte of the upstream call. */
  requestTimeout?: number;
  /** Names of request headers passed to the provider unprocessed; they keep their HTTP form. */
  forwardHeaders?: string[];
  dropUnsupportedParams?: boolean;
  [custom: string]: unknown;
};

/**
 * The headers for a set of gateway parameters. Values are checked with the gateway's own parsers (the config
 * with the same zod schema), so a bad value fails here with the message the gateway would answer.
 */
export function createHeaders(parameters: GatewayParameters): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) {
    refuseSnakeCase(name);
    if (value === undefined || value === null) continue;
    const header = (PARAMETER_HEADERS as Record<string, string>)[name] ?? customHeaderName(name);
    headers[header] = headerValue(name, value);
  }
  validate(headers);
  return headers;
}

/** Options of the client (`createClient`) beside the gateway parameters, for the check of the other SDK's spelling. */
const CLIENT_OPTIONS = ['baseURL', 'providerApiKey'] as const;

/** `api_key` → `apiKey`, `base_url` → `baseURL` (the Python SDK's names → this SDK's), or undefined for no such name. */
export function camelCaseParameter(name: string): string | undefined {
  const camel = name.toLowerCase().replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
  const known = [...Object.keys(PARAMETER_HEADERS), ...CLIENT_OPTIONS];
  return known.find((candidate) => candidate.toLowerCase() === camel.toLowerCase());
}

/**
 * The Python (snake_case) spelling of a parameter is refused, naming this SDK's: taken as a custom header it
 * would silently send `api_key: …` and no `x-gw-api-key`.
 */
function refuseSnakeCase(name: string): void {
  if (!name.includes('_')) return;
  const camel = camelCaseParameter(name);
  if (camel) throw new GwValidationError(`\`${name}\` is the Python SDK's spelling; the TypeScript SDK takes \`${camel}\``, camel, 'invalid_parameter_name');
}

/** `xMyHeader` → `x-my-header`; a name already in HTTP form is kept. */
export function customHeaderName(name: string): string {
  if (name.includes('-')) return name.toLowerCase();
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z])([A-Z][a-z])/g, '$1-$2').toLowerCase();
}

function headerValue(name: string, value: unknown): string {
  if (name === 'config' && typeof value === 'object') return JSON.stringify(value);
  if (name === 'metadata' && typeof value === 'object') return JSON.stringify(value);
  if (name === 'forwardHeaders' && Array.isArray(value)) return value.map(String).join(',');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new GwValidationError(`${name} must be a string, number or boolean`, name);
}

function validate(headers: Record<string, string>): void {
  try {
    readRequestOptions(headers);
    const config = headers['x-gw-config']?.trim();
    if (config?.startsWith('{')) parseInlineConfig(config);
  } catch (error) {
    if (error instanceof GatewayError) throw new GwValidationError(error.message, error.param ?? undefined, error.code);
    throw error;
  }
}
