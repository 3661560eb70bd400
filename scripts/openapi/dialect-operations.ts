import * as z from 'zod';
import { countTokensRequestSchema, inputItemsQuerySchema, messagesRequestSchema, responseIdParametersSchema, responsesRequestSchema } from '../../shared/dialects/schemas.js';
import type { OpenApiOperation } from '../../shared/control-plane/openapi-operation.js';

type InferenceOperation = (path: string, operationId: string, summary: string, body: z.ZodType, streams: boolean) => OpenApiOperation;

const storedResponse = z.looseObject({ id: z.string(), object: z.literal('response') }).meta({ description: 'A stored Response object.' });
const storedErrors = [400, 401, 403, 404];

/** The inbound dialects (shared/dialects/): Responses API with its stored responses, Anthropic Messages API. */
export function dialectOperations(inference: InferenceOperation): OpenApiOperation[] {
  const stored = (method: 'get' | 'delete', path: string, operationId: string, summary: string, schema: z.ZodType, query?: z.ZodObject): OpenApiOperation => ({
    method,
    path,
    operationId,
    summary,
    description: 'Stored responses are scoped to the caller’s workspace: another workspace’s id is a 404.',
    tags: ['Gateway'],
    scopes: ['completions:write'],
    pathParameters: responseIdParametersSchema,
    query,
    responses: { '200': { description: summary, schema } },
    errors: storedErrors,
  });
  return [
    inference('/v1/responses', 'createResponse', 'OpenAI Responses API through gw (any provider; stateful with store)', responsesRequestSchema, true),
    stored('get', '/v1/responses/{responseId}', 'getResponse', 'A stored response', storedResponse),
    stored('delete', '/v1/responses/{responseId}', 'deleteResponse', 'Delete a stored response', z.looseObject({ id: z.string(), object: z.literal('response.deleted'), deleted: z.boolean() })),
    stored('get', '/v1/responses/{responseId}/input_items', 'listResponseInputItems', 'The input items of a stored response', z.looseObject({ object: z.literal('list'), data: z.array(z.looseObject({})) }), inputItemsQuerySchema),
    { ...inference('/v1/messages', 'createMessage', 'Anthropic Messages API through gw (any provider); errors in Anthropic’s shape', messagesRequestSchema, true) },
    inference('/v1/messages/count_tokens', 'countMessageTokens', 'Count the input tokens of a Messages request (native on Anthropic, gpt-tokenizer elsewhere); takes a slot of matching requests policies, obeys allowed_request_types (messages/count_tokens) and is logged', countTokensRequestSchema, false),
  ];
}
