// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { operationFamily } from '../operation-family.js';
import {
  catalogListSchema,
  catalogModelSchema,
  catalogPathSchema,
  catalogQuerySchema,
  healthQuerySchema,
  healthSchema,
  modelIdPathSchema,
  modelsQuerySchema,
  openAIModelListSchema,
  openAIModelSchema,
} from './schemas.js';

const SLASHES = 'Model ids holding `/` are sent as further path segments (up to four) or with the slash encoded as %2F.';

// Any valid gw key reads the catalog: no scope, so never a 403.
const catalog = operationFamily({ tag: 'Model catalog' });

export const openApiOperations: OpenApiOperation[] = [
  catalog.list({
    path: '/v1/model-catalog',
    operationId: 'listModelCatalog',
    summary: 'List the model catalog',
    description: 'Models with pricing and capabilities from the pricing chain (memory → proxy → log store → local files → shipped data). Any valid gw key.',
    query: catalogQuerySchema,
    response: { description: 'Every matching model.', schema: catalogListSchema },
    errors: [400, 401],
  }),
  catalog.get({
    path: '/v1/model-catalog/{provider}/{model}',
    operationId: 'getModelCatalogEntry',
    summary: 'Get one model of the catalog',
    description: `${SLASHES} Provider aliases are accepted; the model id matches exactly, then ignoring case.`,
    pathParameters: catalogPathSchema,
    response: { description: 'The model.', schema: catalogModelSchema },
    errors: [401, 404],
  }),
  catalog.list({
    path: '/v1/models',
    operationId: 'listModels',
    summary: 'List models (OpenAI format)',
    description: 'The models of the providers the caller’s workspace reaches through its virtual keys and saved configs (every known model when it has neither), as OpenAI’s `models.list()` expects. Any valid gw key.',
    query: modelsQuerySchema,
    response: { description: 'The models.', schema: openAIModelListSchema },
    errors: [400, 401],
  }),
  catalog.get({
    path: '/v1/models/{model}',
    operationId: 'retrieveModel',
    summary: 'Retrieve a model (OpenAI format)',
    description: `The first reachable provider that has the model; <provider>/<model> picks the provider. ${SLASHES}`,
    pathParameters: modelIdPathSchema,
    query: modelsQuerySchema,
    response: { description: 'The model.', schema: openAIModelSchema },
    errors: [400, 401, 404],
  }),
  {
    method: 'get',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness (and, deep, the store)',
    description: 'Outside /v1 and without a key: 200 with the version and no store call. ?deep=true with an organisation admin key also reads the store and answers 503 when it fails.',
    tags: ['Operations'],
    security: 'none',
    query: healthQuerySchema,
    responses: { '200': { description: 'gw is up (and, deep, the store answers).', schema: healthSchema }, '503': { description: 'Deep check: the store failed.', schema: healthSchema } },
    errors: [400, 401, 403],
  },
];
