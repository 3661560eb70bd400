import { createHash } from 'node:crypto';
import type { Endpoint, OpenAIBody, TargetSettings } from '../../providers/types.js';

/**
 * What identifies the target a response came from, so a cached answer is only ever served to a request that
 * would have reached the same target with the same credential: provider, base URL (custom host) and the cloud
 * coordinates that pick the deployment, the model, and the virtual key id or else a SHA-256 of the credential
 * (never the credential itself; the whole key is hashed again before it is stored).
 */
export interface TargetIdentity {
  provider: string;
  customHost?: string;
  /** Azure resource/deployment, Vertex project/region, AWS region: parts of the URL the provider builds. */
  location?: Record<string, string | undefined>;
  model?: string;
  virtualKey?: string;
  credentialHash?: string;
}

/** The identity of a resolved target (`virtualKey`: the id the leaf names, if any). */
export function cacheTargetIdentity(target: TargetSettings, virtualKey: string | undefined, model: unknown): TargetIdentity {
  const { azure, vertex, aws } = target;
  const credential = target.apiKey ?? vertex?.serviceAccountJson ?? (aws?.secretAccessKey ? canonicalJson([aws.accessKeyId, aws.secretAccessKey, aws.sessionToken]) : undefined);
  return {
    provider: target.provider,
    customHost: target.customHost,
    location: {
      azure_resource: azure?.resourceName,
      azure_deployment: azure?.deploymentId,
      azure_api_version: azure?.apiVersion,
      vertex_project: vertex?.projectId,
      vertex_region: vertex?.region,
      aws_region: aws?.region,
    },
    model: typeof model === 'string' ? model : undefined,
    // A virtual key names its credential; otherwise the credential's hash does (no credential: none).
    virtualKey,
    credentialHash: virtualKey === undefined && credential !== undefined ? sha256(`gw-cache-credential\u0000${credential}`) : undefined,
  };
}

// Fields that do not change the answer's content: streamed and non-streamed calls share an entry.
const IGNORED_BODY_FIELDS = new Set(['stream', 'stream_options']);

/** JSON with object keys sorted at every depth, so key order never changes a hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function cacheableBody(body: OpenAIBody): OpenAIBody {
  return Object.fromEntries(Object.entries(body).filter(([key]) => !IGNORED_BODY_FIELDS.has(key)));
}

export interface CacheKeyInput {
  workspaceId: string;
  endpoint: Endpoint;
  target: TargetIdentity;
  /** The body after override params, before gw fills `user` from metadata. */
  body: OpenAIBody;
  metadata: Record<string, string>;
  namespace?: string;
  /**
   * `native` for an answer stored in the inbound dialect's own shape (a Response, a Message, passed through),
   * so it never meets a canonical chat answer stored for the same route; absent for canonical answers.
   */
  form?: 'native';
}

/**
 * The exact-match key. Without a namespace it covers workspace, route, target identity, canonical body and
 * metadata; with `x-gw-cache-namespace` it covers workspace, namespace, route, target identity and body, so
 * metadata and other headers are ignored as the spec says, but a namespace never shares answers across
 * providers, base URLs, models or credentials (docs/cache.md).
 */
export function exactCacheKey(input: CacheKeyInput): string {
  // v2: the target identity gained the credential and the namespaced key gained the target (issue #20).
  const material = input.namespace !== undefined
    ? { v: 2, workspace: input.workspaceId, namespace: input.namespace, route: input.endpoint, form: input.form, target: input.target, body: cacheableBody(input.body) }
    : { v: 2, workspace: input.workspaceId, route: input.endpoint, form: input.form, target: input.target, body: cacheableBody(input.body), metadata: input.metadata };
  return sha256(canonicalJson(material));
}

/**
 * The semantic partition: entries compared by similarity must share workspace, namespace, model and every
 * parameter other than the messages.
 */
export function semanticPartition(input: CacheKeyInput): string {
  const { messages: _messages, ...parameters } = cacheableBody(input.body);
  return sha256(canonicalJson({ v: 2, workspace: input.workspaceId, namespace: input.namespace ?? null, route: input.endpoint, target: input.target, parameters }));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
