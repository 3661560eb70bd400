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
  const customHost = customHostOf(record);
  if (customHost) lines.push(`-H ${quote(`x-gw-custom-host: ${customHost}`)}`);
  if (typeof record.trace_id === 'string') lines.push(`-H ${quote(`x-gw-trace-id: ${record.trace_id}`)}`);
  const metadata = record.metadata;
  if (metadata && typeof metadata === 'object' && Object.keys(metadata).length > 0) lines.push(`-H ${quote(`x-gw-metadata: ${JSON.stringify(metadata)}`)}`);
  const body = streamed(requestBodyOf(record), record.stream === true);
  // A streamed answer is read as it arrives: -N stops curl buffering it.
  if (record.stream === true) lines[0] = `curl -N ${quote(origin + path)}`;
  if (body !== undefined && body !== null) lines.push(`-d ${quote(typeof body === 'string' ? body : JSON.stringify(body))}`);
  return lines.join(' \\\n  ');
}

/** The logged request body, wherever the record keeps it. */
export function requestBodyOf(record: Record<string, unknown>): unknown {
  const request = record.request as Record<string, unknown> | undefined;
  return record.request_body ?? request?.body ?? (request && !('body' in request) ? request : undefined);
}

/** The x-gw-custom-host the request carried (each upstream try records it). */
function customHostOf(record: Record<string, unknown>): string | undefined {
  const attempts = Array.isArray(record.attempts) ? (record.attempts as Array<Record<string, unknown>>) : [];
  const host = attempts.map((attempt) => attempt.custom_host).find((value) => typeof value === 'string' && value);
  return host as string | undefined;
}

/** The body with `"stream": true` when the request streamed (a body logged without the flag would replay buffered). */
function streamed(body: unknown, stream: boolean): unknown {
  if (!stream || typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  return (body as Record<string, unknown>).stream === true ? body : { ...body, stream: true };
}
