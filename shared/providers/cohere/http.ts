/** Cohere's host, paths and auth header, shared by the adapter and the rerank pass-through (kept apart so the
 * pass-through registry loads no chat code). */
export const COHERE_API_BASE_URL = 'https://api.cohere.com';

/** `x-gw-custom-host` may name the host alone or include `/v2`; the paths below are under `/v2`. */
export function cohereUrl(customHost: string | undefined, path: string): string {
  const base = (customHost ?? COHERE_API_BASE_URL).replace(/\/+$/, '').replace(/\/v2$/, '');
  return `${base}/v2/${path}`;
}

export function cohereHeaders(input: { target: { apiKey?: string }; forwardHeaders: Record<string, string> }, contentType = 'application/json'): Record<string, string> {
  const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': contentType, accept: 'application/json' };
  if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
  return headers;
}
