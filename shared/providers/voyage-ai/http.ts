/** Voyage AI's host and auth header, shared by the adapter and the rerank pass-through. */
export const VOYAGE_API_BASE_URL = 'https://api.voyageai.com/v1';

/** `x-gw-custom-host` may name the host alone or include `/v1`. */
export function voyageUrl(customHost: string | undefined, path: string): string {
  const base = (customHost ?? VOYAGE_API_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base}/v1/${path}`;
}

export function voyageHeaders(input: { target: { apiKey?: string }; forwardHeaders: Record<string, string> }, contentType = 'application/json'): Record<string, string> {
  const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': contentType };
  if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
  return headers;
}
