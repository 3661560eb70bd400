import * as z from 'zod';
import type { OpenApiOperation } from '../../shared/control-plane/openapi-operation.js';
import { dialectOperations } from './dialect-operations.js';
import { passthroughOperations } from './passthrough-operations.js';
import { batchOperations } from './batch-operations.js';
import { GATEWAY_REQUEST_HEADERS } from '../../shared/gateway/request-headers-doc.js';

/**
 * The gateway's inference endpoints. Their bodies are the provider's (OpenAI wire format) and pass through, so
 * these schemas name only what gw itself reads; the headers are gw's `x-gw-*` request parameters (spec table).
 */
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
  ...batchOperations,
];
