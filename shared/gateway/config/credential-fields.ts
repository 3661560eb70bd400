import { badRequest } from '../../http/errors.js';

/**
 * Which fields of a config (at any depth of the target tree, `cache.embeddings` included) hold a credential.
 * Saved configs move their values to the secret store; reads show them masked; the cache key hashes them.
 */
export const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set([
  'api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'vertex_service_account_json',
]);

/** Credentials that end up in an HTTP header (or a SigV4 signature): no control character may reach them. */
const HEADER_BOUND_FIELDS: ReadonlySet<string> = new Set(['api_key', 'aws_access_key_id', 'aws_secret_access_key', 'aws_session_token']);

/** Subtrees that are request parameters, not settings: a field named `api_key` there is the caller's business. */
const OPAQUE_FIELDS: ReadonlySet<string> = new Set(['override_params']);

export type JsonPath = ReadonlyArray<string | number>;

export interface CredentialField {
  path: JsonPath;
  field: string;
  value: string;
}

/** Every credential field of a config, in document order. */
export function credentialFieldsOf(config: unknown, path: JsonPath = []): CredentialField[] {
  if (Array.isArray(config)) return config.flatMap((item, index) => credentialFieldsOf(item, [...path, index]));
  if (typeof config !== 'object' || config === null) return [];
  const found: CredentialField[] = [];
  for (const [key, value] of Object.entries(config as Record<string, unknown>)) {
    if (OPAQUE_FIELDS.has(key)) continue;
    if (CREDENTIAL_FIELDS.has(key) && typeof value === 'string') found.push({ path: [...path, key], field: key, value });
    else found.push(...credentialFieldsOf(value, [...path, key]));
  }
  return found;
}

/** `targets[1].cache.embeddings.api_key`: the way config errors name a place (with a `config.` prefix when asked). */
export function pathText(path: JsonPath): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');
}

// C0 controls and DEL. A CR/LF in a header value makes the upstream call fail (a 502 that would be retried and
// fall back); refusing it up front is a 400 the caller can fix.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function hasControlCharacter(value: string): boolean {
  return CONTROL_CHARACTER.test(value);
}

/**
 * What a credential that goes into an HTTP header may hold: printable ASCII (U+0020–U+007E). Besides control
 * characters, Node refuses any character above U+00FF in a header value (an emoji), and Latin-1 ones are sent
 * as bytes providers read differently; no provider issues credentials with either. Checked where a credential
 * enters (headers, configs, virtual keys, integrations, MCP servers) so a bad one is a 400, never a 502 per call.
 */
export const HEADER_CREDENTIAL = /^[\u0020-\u007e]*$/;
export const HEADER_CREDENTIAL_MESSAGE = 'must be printable ASCII: no control characters (CR, LF, NUL, …) and no characters outside ASCII (é, emoji), which cannot go in an HTTP header';

/** A credential sent or stored with a character no header can carry is the caller's mistake: 400, never a 502. */
export function assertPrintableCredential(value: string | undefined, param: string): void {
  if (value !== undefined && !HEADER_CREDENTIAL.test(value)) {
    throw badRequest('invalid_credential', `${param}: a credential ${HEADER_CREDENTIAL_MESSAGE}`, param);
  }
}

/** Checks every header-bound credential of a config; `prefix` names where the config came from. */
export function assertPrintableConfigCredentials(config: unknown, prefix = 'config'): void {
  for (const { path, field, value } of credentialFieldsOf(config)) {
    if (HEADER_BOUND_FIELDS.has(field)) assertPrintableCredential(value, `${prefix}.${pathText(path)}`);
  }
}
