/** Where each logged endpoint is served, so a record can be replayed. */
const ENDPOINT_PATHS: Record<string, string> = {
  chat: '/v1/chat/completions',
  'chat/completions': '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  responses: '/v1/responses',
  messages: '/v1/messages',
};

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * The curl command that sends a logged request again. Credentials are never in a record, so they are left as
 * shell variables: `$GW_API_KEY` always, and the provider's token when the request used one.
 */
export function curlFor(record: Record<string, unknown>, origin: string): string {
  const endpoint = String(record.endpoint ?? 'chat');
  const path = ENDPOINT_PATHS[endpoint] ?? (endpoint.startsWith('/') ? endpoint : `/v1/${endpoint}`);
  const lines = [`curl ${quote(origin + path)}`, `-H 'content-type: application/json'`, `-H "x-gw-api-key: $GW_API_KEY"`];
  if (typeof record.virtual_key_id === 'string' && record.virtual_key_id) lines.push(`-H ${quote(`x-gw-virtual-key: ${record.virtual_key_id}`)}`);
  else if (typeof record.provider === 'string' && record.provider) lines.push(`-H ${quote(`x-gw-provider: ${record.provider}`)}`, `-H "authorization: Bearer $PROVIDER_API_KEY"`);
  if (typeof record.trace_id === 'string') lines.push(`-H ${quote(`x-gw-trace-id: ${record.trace_id}`)}`);
  const metadata = record.metadata;
  if (metadata && typeof metadata === 'object' && Object.keys(metadata).length > 0) lines.push(`-H ${quote(`x-gw-metadata: ${JSON.stringify(metadata)}`)}`);
  const body = requestBodyOf(record);
  if (body !== undefined) lines.push(`-d ${quote(typeof body === 'string' ? body : JSON.stringify(body))}`);
  return lines.join(' \\\n  ');
}

/** The logged request body, wherever the record keeps it. */
export function requestBodyOf(record: Record<string, unknown>): unknown {
  const request = record.request as Record<string, unknown> | undefined;
  return record.request_body ?? request?.body ?? (request && !('body' in request) ? request : undefined);
}
