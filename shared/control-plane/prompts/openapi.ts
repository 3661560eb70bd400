// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import * as z from 'zod';
import { GATEWAY_REQUEST_HEADERS } from '../../gateway/request-headers-doc.js';
import type { OpenApiOperation } from '../openapi-operation.js';
import {
  promptIdPathSchema,
  promptLabelPathSchema,
  promptLabelSchema,
  promptListQuerySchema,
  promptRenderBodySchema,
  promptRenderResponseSchema,
  promptSchema,
  promptVersionListSchema,
  promptVersionPathSchema,
  promptVersionSchema,
  promptVersionSelectorQuerySchema,
  promptWorkspaceQuerySchema,
} from './schemas.js';

const TAG = 'Prompts';
const READ = ['prompts:read'];
const LIST = ['prompts:read', 'prompts:list'];
const WRITE = ['prompts:write'];

const renderBodyDescription =
  'variables (required) plus any rendered-prompt field at the root of the body. A body with a hyperparameters key is a 400 (nested_hyperparameters).';

/** The routes besides CRUD (routes.ts); the CRUD operations derive from resource.ts. */
export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'get',
    path: '/v1/prompts/{promptId}/versions',
    operationId: 'listPromptVersions',
    summary: 'List a prompt’s versions',
    description: 'Newest first.',
    tags: [TAG],
    scopes: LIST,
    pathParameters: promptIdPathSchema,
    query: promptListQuerySchema,
    responses: { '200': { description: 'One page of versions.', schema: promptVersionListSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'get',
    path: '/v1/prompts/{promptId}/versions/{version}',
    operationId: 'getPromptVersion',
    summary: 'Get one version of a prompt',
    tags: [TAG],
    scopes: READ,
    pathParameters: promptVersionPathSchema,
    query: promptWorkspaceQuerySchema,
    responses: { '200': { description: 'The version.', schema: promptVersionSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'post',
    path: '/v1/prompts/{promptId}/versions/{version}/publish',
    operationId: 'publishPromptVersion',
    summary: 'Publish a version',
    description: 'Render and completions use the published version when the caller names none.',
    tags: [TAG],
    scopes: WRITE,
    pathParameters: promptVersionPathSchema,
    query: promptWorkspaceQuerySchema,
    responses: { '200': { description: 'The prompt with the published version.', schema: promptSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'put',
    path: '/v1/prompts/{promptId}/labels/{label}',
    operationId: 'setPromptLabel',
    summary: 'Point a label at a version',
    description: 'latest and published are built in and cannot be assigned.',
    tags: [TAG],
    scopes: WRITE,
    pathParameters: promptLabelPathSchema,
    query: promptWorkspaceQuerySchema,
    body: promptLabelSchema,
    responses: { '200': { description: 'The prompt with its labels.', schema: promptSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'delete',
    path: '/v1/prompts/{promptId}/labels/{label}',
    operationId: 'removePromptLabel',
    summary: 'Remove a label',
    tags: [TAG],
    scopes: WRITE,
    pathParameters: promptLabelPathSchema,
    query: promptWorkspaceQuerySchema,
    responses: { '200': { description: 'The prompt without the label.', schema: promptSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'post',
    path: '/v1/prompts/{promptId}/render',
    operationId: 'renderPrompt',
    summary: 'Render a prompt with variables',
    description: 'data is a chat-completions body and can be posted unchanged to /v1/chat/completions. Missing variables are a 400 naming them.',
    tags: [TAG],
    scopes: ['prompts:render'],
    pathParameters: promptIdPathSchema,
    query: promptVersionSelectorQuerySchema,
    body: promptRenderBodySchema,
    bodyDescription: renderBodyDescription,
    responses: { '200': { description: 'The rendered prompt.', schema: promptRenderResponseSchema } },
    errors: [400, 401, 403, 404],
  },
  {
    method: 'post',
    path: '/v1/prompts/{promptId}/completions',
    operationId: 'createPromptCompletion',
    summary: 'Render a prompt and run it as a chat completion (gateway)',
    description:
      'Served by the gateway: renders exactly as /render, then runs the result through /v1/chat/completions with the same headers, so configs, virtual keys and streaming apply. Needs prompts:render and completions:write.',
    tags: [TAG, 'Gateway'],
    scopes: ['prompts:render', 'completions:write'],
    pathParameters: promptIdPathSchema,
    query: promptVersionSelectorQuerySchema.omit({ workspace_id: true }),
    headers: GATEWAY_REQUEST_HEADERS,
    body: promptRenderBodySchema,
    bodyDescription: renderBodyDescription,
    responses: {
      '200': {
        description: 'The chat completion, as /v1/chat/completions answers it.',
        schema: z.looseObject({}).meta({ description: 'The provider’s chat.completion in OpenAI format.' }),
        alternatives: [{ contentType: 'text/event-stream', schema: z.string(), description: 'When the body has stream: true.' }],
      },
    },
    errors: [400, 401, 403, 404, 408, 412, 413, 429, 502, 503, 504],
  },
];
