/**
 * The caller's credential lives in session storage only: gone when the tab closes, never in a URL or a cookie.
 * A value with three dot-separated parts is a JWT (sent as `Authorization: Bearer`), anything else a gw API key.
 */
const STORAGE_KEY = 'gw.console.credential';

export interface Credential {
  kind: 'api_key' | 'jwt';
  value: string;
}

export function credentialFrom(value: string): Credential {
  const trimmed = value.trim();
  return { kind: /^[\w-]+\.[\w-]+\.[\w-]+$/.test(trimmed) ? 'jwt' : 'api_key', value: trimmed };
}

export function loadCredential(): Credential | undefined {
  const stored = sessionStorage.getItem(STORAGE_KEY);
  return stored ? credentialFrom(stored) : undefined;
}

export function saveCredential(credential: Credential): void {
  sessionStorage.setItem(STORAGE_KEY, credential.value);
}

export function forgetCredential(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

export function authHeaders(credential: Credential): Record<string, string> {
  return credential.kind === 'jwt' ? { authorization: `Bearer ${credential.value}` } : { 'x-gw-api-key': credential.value };
}
