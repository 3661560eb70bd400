import { isGatewayKeyShaped } from '../auth/api-key-secrets.js';
import { credentialFieldsOf, type JsonPath } from './config/credential-fields.js';

/** Answers whether a value is a key gw issued, in any workspace (ApiKeyAuthenticator.isIssuedKey: a lookup by hash). */
export interface IssuedKeyCheck {
  isIssuedKey(rawKey: string): Promise<boolean>;
}

/** The headers a client puts a provider key in; gw reads `authorization` and `x-api-key`, the rest never go upstream. */
const PROVIDER_KEY_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'] as const;
/** The two a client whose only key field holds gw's key fills (Claude Code, OpenAI SDKs): they may stand in for x-gw-api-key. */
const GATEWAY_KEY_STAND_INS = new Set<string>(['authorization', 'x-api-key']);

/**
 * gw's own API keys never go upstream, whichever header the client put them in (docs/security.md, "gw's key is
 * never a provider key"). Each provider-key header whose value is a gw key — gw's prefix (`gwk_…`, any workspace,
 * no lookup), equal to this request's `x-gw-api-key` (no lookup), or else found by its SHA-256 in the key table
 * (the one way a key without the prefix exists: a chosen GW_BOOTSTRAP_API_KEY; cached, see isIssuedKey) — is
 * removed from the request before anything reads it, so no adapter can send it on. It is dropped, not refused:
 * a client configured with gw's key in both places (Claude Code with a custom header plus its API-key setting)
 * then works with a virtual key, saved config or integration supplying the provider's credential; with none, the
 * provider receives no credential and answers its own 401. When the request has no `x-gw-api-key`, the first gw
 * key found in `Authorization: Bearer` or `x-api-key` becomes it, as clients with only one key field need.
 */
export async function keepGatewayKeysFromProviders(headers: Record<string, string>, issued: IssuedKeyCheck): Promise<void> {
  for (const name of PROVIDER_KEY_HEADERS) {
    const value = credentialIn(name, headers[name]);
    if (value === undefined || !(await isGatewayKey(value, headers['x-gw-api-key'], issued))) continue;
    delete headers[name];
    if (!headers['x-gw-api-key'] && GATEWAY_KEY_STAND_INS.has(name)) headers['x-gw-api-key'] = value;
  }
  await keepGatewayKeysFromOtherHeaders(headers, issued);
}

/**
 * Any other header may go upstream too: the ones a caller names in `x-gw-forward-headers` (or a config's
 * forward_headers) unprocessed, and a few an adapter passes on (anthropic-beta…). A header holding a gw key in any
 * of its words is removed as well: a word with gw's prefix or equal to this request's key, checked for every header
 * (no lookup); the headers `x-gw-forward-headers` names are also looked up by hash, as provider-key headers are, so
 * that a normal request (no such header) costs no store read for this. The ones a config names are known only once
 * the config is resolved: keepGatewayKeysFromConfigForwardHeaders looks those up then.
 */
async function keepGatewayKeysFromOtherHeaders(headers: Record<string, string>, issued: IssuedKeyCheck): Promise<void> {
  const requestKey = headers['x-gw-api-key']?.trim();
  const named = new Set(forwardedNames(headers['x-gw-forward-headers']));
  for (const [name, raw] of Object.entries(headers)) {
    if (name.startsWith('x-gw-') || typeof raw !== 'string') continue;
    if (await holdsGatewayKey(raw, requestKey, named.has(name) ? issued : undefined)) delete headers[name];
  }
}

/**
 * The headers a config's `forward_headers` names (at any depth of its target tree) get the lookup by hash that
 * `x-gw-forward-headers` ones get: a prefix-less gw key (a chosen GW_BOOTSTRAP_API_KEY) in one is no longer caught
 * only by equality with this request's key. Runs once the request's config is resolved, before any target reads a
 * header; the lookup is cached per process (isIssuedKey), so a warm request costs no store read for it.
 */
export async function keepGatewayKeysFromConfigForwardHeaders(headers: Record<string, string>, config: unknown, issued: IssuedKeyCheck): Promise<void> {
  const names = configForwardHeaderNames(config);
  if (names.size === 0) return;
  const alreadyLookedUp = new Set(forwardedNames(headers['x-gw-forward-headers']));
  const requestKey = headers['x-gw-api-key']?.trim();
  for (const name of names) {
    const raw = headers[name];
    if (name.startsWith('x-gw-') || alreadyLookedUp.has(name) || typeof raw !== 'string') continue;
    if (await holdsGatewayKey(raw, requestKey, issued)) delete headers[name];
  }
}

/** Whether any word of a header value is a gw key; without `issued`, only by prefix and this request's key. */
async function holdsGatewayKey(raw: string, requestKey: string | undefined, issued: IssuedKeyCheck | undefined): Promise<boolean> {
  const words = raw.split(/[\s,;=:]+/).filter((word) => word.length > 0 && word.length <= MAX_GATEWAY_KEY_LENGTH);
  for (const word of words) {
    if (word === requestKey || isGatewayKeyShaped(word) || (issued !== undefined && (await issued.isIssuedKey(word)))) return true;
  }
  return false;
}

/** Every `forward_headers` entry of a config's target tree, lower-cased (header names are). */
function configForwardHeaderNames(config: unknown, found = new Set<string>()): Set<string> {
  if (typeof config !== 'object' || config === null) return found;
  const node = config as { forward_headers?: unknown; targets?: unknown };
  if (Array.isArray(node.forward_headers)) {
    for (const name of node.forward_headers) if (typeof name === 'string') found.add(name.trim().toLowerCase());
  }
  if (Array.isArray(node.targets)) for (const target of node.targets) configForwardHeaderNames(target, found);
  return found;
}

/** The header names `x-gw-forward-headers` lists (comma-separated or a JSON array); forward-headers.ts validates them. */
function forwardedNames(value: string | undefined): string[] {
  if (!value) return [];
  const text = value.trim();
  if (!text.startsWith('[')) return text.split(',').map((name) => name.trim().toLowerCase());
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string').map((name) => name.trim().toLowerCase()) : [];
  } catch {
    return [];
  }
}

async function isGatewayKey(value: string, requestKey: string | undefined, issued: IssuedKeyCheck): Promise<boolean> {
  return value === requestKey?.trim() || isGatewayKeyShaped(value) || issued.isIssuedKey(value);
}

/** The credential a header carries: Authorization's Bearer token, the whole value of the others. */
function credentialIn(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = name === 'authorization' ? /^Bearer\s+(\S+)\s*$/i.exec(raw)?.[1] : raw.trim();
  return value ? value : undefined;
}

/**
 * The same rule for the credentials a config carries (`api_key`, AWS keys, a service account, at any depth of the
 * target tree): a gw key there is dropped before any target is built from it, as if the field were absent, so the
 * target falls back to what it inherits (the request's provider key, itself already cleared of gw keys). Stored
 * resources refuse such a value at creation (control-plane/gateway-key-credential.ts); an inline `x-gw-config` is
 * never stored, so it is filtered here, on every request; so is anything stored before that refusal existed.
 * Returns the config itself when it holds no gw key (saved configs are cached and shared: never changed in place).
 */
export async function withoutGatewayKeyCredentials<T>(config: T, requestKey: string | undefined, issued: IssuedKeyCheck): Promise<T> {
  const found: JsonPath[] = [];
  for (const { path, value } of credentialFieldsOf(config)) {
    if (value.length <= MAX_GATEWAY_KEY_LENGTH && (await isGatewayKey(value, requestKey, issued))) found.push(path);
  }
  if (found.length === 0) return config;
  const copy = structuredClone(config);
  for (const path of found) deleteAt(copy, path);
  return copy;
}

// gw refuses longer keys outright (auth/authenticate.ts), so a longer value is no gw key: no hash, no lookup.
const MAX_GATEWAY_KEY_LENGTH = 256;

function deleteAt(root: unknown, path: JsonPath): void {
  const parent = path.slice(0, -1).reduce<unknown>((node, part) => (node as Record<string | number, unknown>)[part], root);
  delete (parent as Record<string | number, unknown>)[path.at(-1)!];
}
