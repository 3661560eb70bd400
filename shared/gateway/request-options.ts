import { randomUUID } from 'node:crypto';
import { badRequest } from '../http/errors.js';
import type { TargetSettings } from '../providers/types.js';
import { MAX_ID_CHARS } from '../http/ids.js';
import { assertJsonNesting } from '../http/json-nesting.js';
import { assertPrintableCredential } from './config/credential-fields.js';
import { parseForwardHeaders } from './forward-headers.js';
import { readAccountHeaders } from './account-headers.js';
import type { StoredCredential } from './stored-credential-host.js';

/** Every `x-gw-*` header, parsed once at the start of the pipeline. Nothing further down reads raw headers. */
export interface RequestOptions {
  traceId: string;
  provider?: string;
  /** The token of `Authorization: Bearer …`, meant for the provider. */
  providerToken?: string;
  virtualKey?: string;
  config?: string;
  /** `x-gw-deployment`: the slug of a deployment whose config the request runs. */
  deployment?: string;
  customHost?: string;
  metadata: Record<string, string>;
  cacheForceRefresh?: boolean;
  cacheNamespace?: string;
  requestTimeoutMs?: number;
  forwardHeaders: Record<string, string>;
  dropUnsupportedParams: boolean;
  azure: NonNullable<TargetSettings['azure']>;
  vertex: NonNullable<TargetSettings['vertex']>;
  aws: NonNullable<TargetSettings['aws']>;
  /** `x-gw-<provider>-…` account headers of OpenAI-compatible providers (account-headers.ts), checked. */
  accounts: NonNullable<TargetSettings['accounts']>;
  anthropicBeta?: string;
  /**
   * Set by `x-gw-provider: @<slug>` (provider-target.ts): the integration's stored credential (when it has one,
   * replacing `providerToken`) and its stored host. `customHost` stays what the caller sent.
   */
  workspaceProvider?: { credential?: StoredCredential; customHost?: string };
  /**
   * Never a header: the model allow list of the workspace provider `x-gw-provider: @<slug>` names, set with its
   * credential by applyWorkspaceProvider and checked per target after override_params (allowed-models.ts).
   */
  allowedModels?: AllowedModels;
}

/** The models a stored credential may be used for, and whose list it is (for the error). */
export interface AllowedModels {
  source: string;
  models: string[];
}

const MAX_TRACE_ID_LENGTH = 128;
const MAX_METADATA_BYTES = 8 * 1024;
const MAX_REQUEST_TIMEOUT_MS = 15 * 60 * 1000;
// Printable ASCII without spaces: safe to echo in a header and to use as a log key.
const TRACE_ID_PATTERN = /^[\x21-\x7e]+$/;

/**
 * The cloud headers: the spec's literal `clouda/b/c` names and gw's real-provider names both fill the same
 * field, the real name winning when both are sent.
 */
const CLOUD_HEADERS: ReadonlyArray<{ names: string[]; group: 'azure' | 'vertex' | 'aws'; field: string }> = [
  { names: ['x-gw-azure-resource-name', 'x-gw-clouda-resource-name'], group: 'azure', field: 'resourceName' },
  { names: ['x-gw-azure-deployment-id', 'x-gw-clouda-deployment-id'], group: 'azure', field: 'deploymentId' },
  { names: ['x-gw-azure-api-version', 'x-gw-clouda-api-version'], group: 'azure', field: 'apiVersion' },
  { names: ['x-gw-azure-model-name', 'x-gw-clouda-model-name'], group: 'azure', field: 'modelName' },
  { names: ['x-gw-vertex-project-id', 'x-gw-cloudb-project-id'], group: 'vertex', field: 'projectId' },
  { names: ['x-gw-vertex-region', 'x-gw-cloudb-region'], group: 'vertex', field: 'region' },
  { names: ['x-vertex-llm-request-type', 'x-cloudb-llm-request-type'], group: 'vertex', field: 'requestType' },
  { names: ['x-gw-vertex-batch-bucket'], group: 'vertex', field: 'batchBucket' },
  { names: ['x-gw-vertex-batch-prefix'], group: 'vertex', field: 'batchPrefix' },
  { names: ['x-gw-aws-access-key-id', 'x-gw-cloudc-access-key-id'], group: 'aws', field: 'accessKeyId' },
  { names: ['x-gw-aws-secret-access-key', 'x-gw-cloudc-secret-access-key'], group: 'aws', field: 'secretAccessKey' },
  { names: ['x-gw-aws-session-token', 'x-gw-cloudc-session-token'], group: 'aws', field: 'sessionToken' },
  { names: ['x-gw-aws-region', 'x-gw-cloudc-region'], group: 'aws', field: 'region' },
  { names: ['x-gw-aws-batch-bucket'], group: 'aws', field: 'batchBucket' },
  { names: ['x-gw-aws-batch-prefix'], group: 'aws', field: 'batchPrefix' },
  { names: ['x-gw-aws-batch-role-arn'], group: 'aws', field: 'batchRoleArn' },
];

export function readRequestOptions(headers: Record<string, string>): RequestOptions {
  const cloud = { azure: {} as Record<string, string>, vertex: {} as Record<string, string>, aws: {} as Record<string, string> };
  for (const { names, group, field } of CLOUD_HEADERS) {
    const value = names.map((name) => headers[name]).find((candidate) => candidate !== undefined && candidate !== '');
    if (value !== undefined) cloud[group][field] = value.trim();
    if (value !== undefined && group === 'aws') assertPrintableCredential(value.trim(), names[0]);
  }
  return {
    traceId: readTraceId(headers['x-gw-trace-id']),
    provider: nonEmpty(headers['x-gw-provider'])?.toLowerCase(),
    providerToken: readBearer(headers.authorization),
    virtualKey: readId(headers['x-gw-virtual-key'], 'x-gw-virtual-key'),
    config: nonEmpty(headers['x-gw-config']),
    deployment: readDeploymentSlug(headers['x-gw-deployment']),
    customHost: nonEmpty(headers['x-gw-custom-host']),
    metadata: readMetadata(headers['x-gw-metadata']),
    cacheForceRefresh: readBoolean(headers['x-gw-cache-force-refresh'], 'x-gw-cache-force-refresh'),
    cacheNamespace: nonEmpty(headers['x-gw-cache-namespace']),
    requestTimeoutMs: readTimeout(headers['x-gw-request-timeout']),
    forwardHeaders: parseForwardHeaders(headers['x-gw-forward-headers'], headers),
    dropUnsupportedParams: readBoolean(headers['x-gw-drop-unsupported-params'], 'x-gw-drop-unsupported-params') ?? false,
    azure: cloud.azure,
    vertex: cloud.vertex,
    aws: cloud.aws,
    accounts: readAccountHeaders(headers),
    anthropicBeta: nonEmpty(headers['anthropic-beta']),
  };
}

/** The caller's trace id, or a new one. Invalid ids are refused rather than silently replaced. */
export function readTraceId(value: string | undefined): string {
  if (value === undefined || value === '') return randomUUID();
  if (value.length > MAX_TRACE_ID_LENGTH || !TRACE_ID_PATTERN.test(value)) {
    throw badRequest('invalid_trace_id', `x-gw-trace-id must be 1-${MAX_TRACE_ID_LENGTH} printable ASCII characters without spaces`, 'x-gw-trace-id');
  }
  return value;
}

function readDeploymentSlug(value: string | undefined): string | undefined {
  const slug = nonEmpty(value);
  if (slug !== undefined && !/^[a-z0-9][a-z0-9_-]{0,254}$/.test(slug)) {
    throw badRequest('invalid_header', 'x-gw-deployment must be a deployment slug (lower-case letters, digits, "-" and "_")', 'x-gw-deployment');
  }
  return slug;
}

/** A header naming a stored resource by id: at most MAX_ID_CHARS (shared/http/ids.ts), like ids in paths and bodies. */
function readId(value: string | undefined, header: string): string | undefined {
  const id = nonEmpty(value);
  if (id !== undefined && id.length > MAX_ID_CHARS) throw badRequest('invalid_header', `${header} must be an id of at most ${MAX_ID_CHARS} characters`, header);
  return id;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function readBearer(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(value.trim());
  if (!match) {
    throw badRequest('invalid_authorization', 'Authorization must have the form "Bearer <provider token>"', 'authorization');
  }
  assertPrintableCredential(match[1].trim(), 'authorization');
  return match[1].trim();
}

function readMetadata(value: string | undefined): Record<string, string> {
  if (value === undefined || value.trim() === '') return {};
  if (Buffer.byteLength(value) > MAX_METADATA_BYTES) {
    throw badRequest('invalid_metadata', `x-gw-metadata must be at most ${MAX_METADATA_BYTES} bytes`, 'x-gw-metadata');
  }
  assertJsonNesting(value, 'x-gw-metadata', 'x-gw-metadata');
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest('invalid_metadata', 'x-gw-metadata must be a JSON object, e.g. {"_user":"alice"}; it is not valid JSON', 'x-gw-metadata');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('invalid_metadata', 'x-gw-metadata must be a JSON object of string values', 'x-gw-metadata');
  }
  for (const [key, entry] of Object.entries(parsed)) {
    if (typeof entry !== 'string') {
      throw badRequest('invalid_metadata', `x-gw-metadata values must be strings; "${key}" is ${entry === null ? 'null' : typeof entry}`, `x-gw-metadata.${key}`);
    }
  }
  return parsed as Record<string, string>;
}

function readBoolean(value: string | undefined, header: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  const normalised = value.trim().toLowerCase();
  if (normalised === 'true') return true;
  if (normalised === 'false') return false;
  throw badRequest('invalid_header', `${header} must be "true" or "false"`, header);
}

function readTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const trimmed = value.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1 || Number(trimmed) > MAX_REQUEST_TIMEOUT_MS) {
    throw badRequest('invalid_request_timeout', `x-gw-request-timeout must be an integer number of milliseconds between 1 and ${MAX_REQUEST_TIMEOUT_MS}`, 'x-gw-request-timeout');
  }
  return Number(trimmed);
}
