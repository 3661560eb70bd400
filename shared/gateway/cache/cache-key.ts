import { createHash } from 'node:crypto';
import type { Endpoint, OpenAIBody } from '../../providers/types.js';

/** What identifies the target a response came from: never the raw credential. */
export interface TargetIdentity {
  provider: string;
  customHost?: string;
  virtualKey?: string;
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
}

/**
 * The exact-match key. Without a namespace it covers workspace, route, target identity, canonical body and
 * metadata; with `x-gw-cache-namespace` it covers workspace, namespace, route and body only, so metadata and
 * other headers are ignored as the spec says.
 */
export function exactCacheKey(input: CacheKeyInput): string {
  const material = input.namespace !== undefined
    ? { v: 1, workspace: input.workspaceId, namespace: input.namespace, route: input.endpoint, body: cacheableBody(input.body) }
    : { v: 1, workspace: input.workspaceId, route: input.endpoint, target: input.target, body: cacheableBody(input.body), metadata: input.metadata };
  return sha256(canonicalJson(material));
}

/**
 * The semantic partition: entries compared by similarity must share workspace, namespace, model and every
 * parameter other than the messages.
 */
export function semanticPartition(input: CacheKeyInput): string {
  const { messages: _messages, ...parameters } = cacheableBody(input.body);
  return sha256(canonicalJson({ v: 1, workspace: input.workspaceId, namespace: input.namespace ?? null, route: input.endpoint, target: input.target, parameters }));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
