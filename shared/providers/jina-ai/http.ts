/** Jina AI's host and auth header, shared by the adapter and the rerank pass-through. */
export const JINA_API_BASE_URL = 'https://api.jina.ai/v1';

/** `x-gw-custom-host` may name the host alone or include `/v1`. */
export function jinaUrl(customHost: string | undefined, path: string): string {
  const base = (customHost ?? JINA_API_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base}/v1/${path}`;
}

export function jinaHeaders(input: { target: { apiKey?: string }; forwardHeaders: Record<string, string> }, contentType = 'application/json'): Record<string, string> {
  const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': contentType, accept: 'application/json' };
  if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
  return headers;
}
