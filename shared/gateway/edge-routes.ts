import { PASSTHROUGH_PATHS } from './passthrough/paths.js';

/**
 * Which Lambda serves which path. The CDK stack wires API Gateway from this list and the local runtime routes
 * with it, so both edges agree. Paths use `{name}` for one segment; everything else under /v1 is the
 * control plane's.
 */
export const GATEWAY_PATHS: readonly string[] = [
  '/v1/chat/completions',
  '/v1/completions',
  '/v1/embeddings',
  // Renders a stored prompt and runs it as a chat completion, so it is inference.
  '/v1/prompts/{promptId}/completions',
  // Inbound dialects (shared/dialects/): OpenAI's Responses API (stateful) and Anthropic's Messages API.
  '/v1/responses',
  '/v1/responses/{responseId}',
  '/v1/responses/{responseId}/input_items',
  '/v1/messages',
  '/v1/messages/count_tokens',
  // Pass-through OpenAI endpoints (shared/gateway/passthrough/); audio/speech streams binary audio.
  ...PASSTHROUGH_PATHS,
  // Files and batches in OpenAI's shapes (shared/gateway/batches/): a batch is inference, run by the provider later.
  '/v1/files',
  '/v1/files/{fileId}',
  '/v1/files/{fileId}/content',
  '/v1/batches',
  '/v1/batches/{batchId}',
  '/v1/batches/{batchId}/cancel',
  // gw as an MCP gateway (shared/mcp/): Streamable HTTP, POST + GET (server event stream) + DELETE.
  '/v1/mcp/{server}',
  // Liveness without a key, outside /v1: API Gateway needs it as a resource at the API root.
  '/health',
];

export function isGatewayPath(path: string): boolean {
  const segments = path.split('/').filter(Boolean);
  return GATEWAY_PATHS.some((pattern) => {
    const expected = pattern.split('/').filter(Boolean);
    return expected.length === segments.length && expected.every((part, i) => part.startsWith('{') || part === segments[i]);
  });
}
