import * as z from 'zod';
import type { OpenApiOperation } from '../../shared/control-plane/openapi-operation.js';
import { dialectOperations } from './dialect-operations.js';
import { passthroughOperations } from './passthrough-operations.js';

/**
 * The gateway's inference endpoints. Their bodies are the provider's (OpenAI wire format) and pass through, so
 * these schemas name only what gw itself reads; the headers are gw's `x-gw-*` request parameters (spec table).
 */
const stringHeader = z.string();

export const GATEWAY_REQUEST_HEADERS: NonNullable<OpenApiOperation['headers']> = [
  { name: 'x-gw-provider', description: 'Provider slug; used with Authorization or with x-gw-custom-host. @<slug> names a workspace provider (an enabled integration: its credential, model allowlist and limits).', schema: stringHeader },
  { name: 'Authorization', description: 'Provider credential, `Bearer <PROVIDER_TOKEN>`; converted to the header form the provider expects.', schema: stringHeader },
  { name: 'x-gw-virtual-key', description: 'Identifier of a stored provider credential (virtual key).', schema: stringHeader },
  { name: 'x-gw-config', description: 'A saved config id, or an inline config as JSON (see the GatewayConfig schema where present).', schema: stringHeader },
  { name: 'x-gw-deployment', description: 'A deployment slug: the request runs that deployment’s config (not together with x-gw-config). A deployment restricted away from the workspace is a 404.', schema: stringHeader },
  { name: 'x-gw-custom-host', description: 'Base URL the request is sent to (with x-gw-provider naming its wire format).', schema: stringHeader },
  { name: 'x-gw-trace-id', description: 'Caller-chosen id (1-128 printable ASCII characters, no spaces); generated when absent and echoed back.', schema: stringHeader },
  { name: 'x-gw-metadata', description: 'JSON object of string values (at most 8 KiB); `_user` names the end user.', schema: stringHeader },
  { name: 'x-gw-cache-force-refresh', description: 'Forces a new upstream call and stores the new value in the cache.', schema: z.enum(['true', 'false']) },
  { name: 'x-gw-cache-namespace', description: 'Partitions the cache by a custom string.', schema: stringHeader },
  { name: 'x-gw-request-timeout', description: 'Milliseconds after which the upstream call is abandoned (connect and first byte).', schema: z.string().regex(/^\d+$/) },
  { name: 'x-gw-forward-headers', description: 'Names of other request headers forwarded to the provider unprocessed: comma-separated, or a JSON array (at most 32).', schema: stringHeader },
  { name: 'x-gw-drop-unsupported-params', description: 'Drop body parameters the provider does not support instead of refusing the request.', schema: z.enum(['true', 'false']) },
  { name: 'x-gw-azure-resource-name', description: 'Azure OpenAI resource (spec: x-gw-clouda-resource-name).', schema: stringHeader },
  { name: 'x-gw-azure-deployment-id', description: 'Azure OpenAI deployment (spec: x-gw-clouda-deployment-id).', schema: stringHeader },
  { name: 'x-gw-azure-api-version', description: 'Azure OpenAI api-version (spec: x-gw-clouda-api-version).', schema: stringHeader },
  { name: 'x-gw-azure-model-name', description: 'Azure OpenAI model name (spec: x-gw-clouda-model-name).', schema: stringHeader },
  { name: 'x-gw-vertex-project-id', description: 'Vertex AI project (spec: x-gw-cloudb-project-id).', schema: stringHeader },
  { name: 'x-gw-vertex-region', description: 'Vertex AI region (spec: x-gw-cloudb-region).', schema: stringHeader },
  { name: 'x-vertex-llm-request-type', description: 'Vertex AI request type (spec: X-CloudB-LLM-Request-Type).', schema: stringHeader },
  { name: 'x-gw-aws-access-key-id', description: 'Bedrock access key id (spec: x-gw-cloudc-access-key-id).', schema: stringHeader },
  { name: 'x-gw-aws-secret-access-key', description: 'Bedrock secret access key (spec: x-gw-cloudc-secret-access-key).', schema: stringHeader },
  { name: 'x-gw-aws-session-token', description: 'Bedrock session token (spec: x-gw-cloudc-session-token).', schema: stringHeader },
  { name: 'x-gw-aws-region', description: 'Bedrock region (spec: x-gw-cloudc-region).', schema: stringHeader },
];

const RESPONSE_HEADERS = [
  { name: 'x-gw-trace-id', description: 'The caller’s trace id, or the one generated.' },
  { name: 'x-gw-provider', description: 'The provider that answered.' },
  { name: 'x-gw-cache-status', description: 'HIT, SEMANTIC HIT, MISS, SEMANTIC MISS, REFRESH or DISABLED.' },
  { name: 'x-gw-retry-attempt-count', description: 'Retries made before this answer.' },
  { name: 'x-gw-last-used-option-index', description: 'Under a config: the JSON path of the target that answered, e.g. config.targets[1].' },
];

const messageSchema = z.looseObject({ role: z.string(), content: z.unknown().optional() }).meta({ description: 'A chat message (OpenAI format); other fields pass through.' });

export const chatCompletionRequestSchema = z
  .looseObject({
    model: z.string().optional().meta({ description: 'Required unless a config target supplies it through override_params.' }),
    messages: z.array(messageSchema).min(1),
    stream: z.boolean().optional(),
  })
  .meta({ description: 'An OpenAI chat completion request; fields gw does not read pass through to the provider.' });

export const completionRequestSchema = z
  .looseObject({ model: z.string().optional(), prompt: z.unknown(), stream: z.boolean().optional() })
  .meta({ description: 'An OpenAI (legacy) completion request.' });

export const embeddingRequestSchema = z
  .looseObject({ model: z.string().optional(), input: z.unknown() })
  .meta({ description: 'An OpenAI embeddings request.' });

const providerResponseSchema = z.looseObject({}).meta({ id: 'ProviderResponse', description: 'The provider’s answer in OpenAI format (chat.completion, text_completion or list of embeddings).' });
const streamSchema = z.string().meta({ description: 'Server-sent events in OpenAI format, ending with `data: [DONE]`; usage is in the final chunk.' });

const GATEWAY_ERRORS = [400, 401, 403, 404, 408, 412, 413, 429, 502, 503, 504];

function inference(path: string, operationId: string, summary: string, body: z.ZodType, streams: boolean): OpenApiOperation {
  return {
    method: 'post',
    path,
    operationId,
    summary,
    description: 'Needs x-gw-api-key and one way to reach a provider: x-gw-provider + Authorization, x-gw-virtual-key, x-gw-config, or x-gw-custom-host.',
    tags: ['Gateway'],
    scopes: ['completions:write'],
    headers: GATEWAY_REQUEST_HEADERS,
    body,
    responses: {
      '200': {
        description: 'The provider’s answer, with gw’s response headers. Provider errors keep their status and carry the original body under error.provider_error.',
        schema: providerResponseSchema,
        alternatives: streams ? [{ contentType: 'text/event-stream', schema: streamSchema, description: 'When the body has stream: true.' }] : [],
        headers: RESPONSE_HEADERS,
      },
    },
    errors: GATEWAY_ERRORS,
  };
}

export const gatewayOperations: OpenApiOperation[] = [
  inference('/v1/chat/completions', 'createChatCompletion', 'Chat completion through gw', chatCompletionRequestSchema, true),
  inference('/v1/completions', 'createCompletion', 'Text completion through gw', completionRequestSchema, true),
  inference('/v1/embeddings', 'createEmbedding', 'Embeddings through gw', embeddingRequestSchema, false),
  ...dialectOperations(inference),
  ...passthroughOperations(inference),
];
